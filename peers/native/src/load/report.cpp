#include "load/report.hpp"

#include <algorithm>
#include <map>

#include "load/schedule.hpp"
#include "patterns.hpp"  // now_ns
#include "release_at.hpp"

namespace ipclab::load {

using burst::kEmpty;

Run plan_run(const DriveOptions& o) {
  Run run;
  run.warmup_ns = static_cast<std::int64_t>(o.warmup_ms) * 1'000'000;
  const auto limit = static_cast<std::int64_t>(o.warmup_ms + o.duration_ms) * 1'000'000;
  run.offsets = schedule(o.seed, o.rate, o.poisson, limit);
  run.records.resize(run.offsets.size());
  run.clients = o.clients;
  return run;
}

std::int64_t read_t0(const DriveOptions& o, Run& run) noexcept {
  if (o.release_at_ns == 0) return now_ns();
  // Hosts spreading one case's connections start their schedules together (each schedule's
  // offsets count from its own T0); a host whose set-up ran past the instant shows it as lateness.
  const WallRelease release = sleep_until_wall_clock(o.release_at_ns);
  run.release_late_ns = release.late_ns;
  return release.monotonic_ns;
}

void publish(const Run& run, const DriveOptions& o, Recorder& recorder) {
  write_file_atomically(o.records_file, format_load_records(run));
  record_samples(run, recorder);
  recorder.report(summarise(run, o));
}

std::string format_load_records(const Run& run) {
  std::string text(kLoadRecordsHeader);
  text.reserve(text.size() + run.offsets.size() * 48);
  char line[6 * 24 + 24];
  for (std::size_t k = 0; k < run.offsets.size(); ++k) {
    const RequestRecord& r = run.records[k];
    char* out = line;
    out = burst::put_field(out, static_cast<std::int64_t>(k));
    out = burst::put_field(out, static_cast<std::int64_t>(k % run.clients));
    out = burst::put_field(out, run.measured(k) ? 1 : 0);
    out = burst::put_field(out, run.offsets[k]);
    out = burst::put_field(out, r.sent);
    out = burst::put_field(out, r.received);
    out = burst::put_text(out, burst::conn_error_name(r.error));
    *out++ = '\n';
    text.append(line, static_cast<std::size_t>(out - line));
  }
  return text;
}

namespace {

// The nearest-rank 99th percentile of the measured requests' lateness (sent − intended).
std::int64_t lateness_p99(const Run& run) {
  std::vector<std::int64_t> late;
  for (std::size_t k = 0; k < run.offsets.size(); ++k)
    if (run.measured(k) && run.records[k].sent != kEmpty)
      late.push_back(run.records[k].sent - run.offsets[k]);
  if (late.empty()) return 0;
  const std::size_t rank = (late.size() * 99 + 99) / 100;  // ⌈0.99 n⌉
  std::nth_element(late.begin(), late.begin() + static_cast<std::ptrdiff_t>(rank - 1), late.end());
  return late[rank - 1];
}

}  // namespace

LoadReport summarise(const Run& run, const DriveOptions& o) {
  LoadReport r;
  r.clients = o.clients;
  r.rate = o.rate;
  r.arrival = o.poisson ? "poisson" : "fixed";
  r.duration_ms = o.duration_ms;
  r.warmup_ms = o.warmup_ms;
  std::map<std::string, std::uint64_t> errors;
  std::int64_t last = kEmpty;
  for (std::size_t k = 0; k < run.offsets.size(); ++k) {
    const RequestRecord& rec = run.records[k];
    if (!run.measured(k)) {
      ++r.warmup;
      continue;
    }
    ++r.measured;
    if (rec.error == ConnError::none) ++r.ok;
    else ++errors[std::string(burst::conn_error_name(rec.error))];
    if (rec.received != kEmpty && rec.received > last) last = rec.received;
  }
  r.failed = r.measured - r.ok;
  r.errors.assign(errors.begin(), errors.end());
  const std::int64_t span = last - run.warmup_ns;
  r.achieved_per_s = last != kEmpty && span > 0 ? static_cast<double>(r.ok) * 1e9 / span : 0.0;
  r.lateness_p99_ns = lateness_p99(run);
  r.release_late_ns = run.release_late_ns;
  return r;
}

void record_samples(const Run& run, Recorder& recorder) {
  for (std::size_t k = 0; k < run.offsets.size(); ++k)
    if (run.measured(k) && run.records[k].error == ConnError::none)
      recorder.record_measured(run.records[k].received - run.offsets[k]);
}

}  // namespace ipclab::load
