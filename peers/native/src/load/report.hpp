// load (PROTOCOL.md 11.5.3, "Files"): what the client keeps per request, and what it becomes:
// the records CSV, the samples and the result's figures; and T0, which every load client reads
// alike (step 1). Internal to load/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "burst/records.hpp"  // ConnError
#include "options.hpp"
#include "result.hpp"

namespace ipclab::load {

using burst::ConnError;

// One request's instants, relative to T0 (kEmpty: not taken).
struct RequestRecord {
  std::int64_t sent = burst::kEmpty;
  std::int64_t received = burst::kEmpty;
  ConnError error = ConnError::none;
};

// A run's schedule and records: offsets[k] is request k's intended start.
struct Run {
  std::vector<std::int64_t> offsets;
  std::vector<RequestRecord> records;
  std::int64_t warmup_ns = 0;  // requests with an offset below it are the warm-up
  std::uint32_t clients = 1;
  std::optional<std::int64_t> release_late_ns;  // --release-at: T0's wall clock minus NS
  bool measured(std::size_t k) const noexcept { return offsets[k] >= warmup_ns; }
};

inline constexpr std::string_view kLoadRecordsHeader =
    "request,connection,measured,intended_ns,sent_ns,received_ns,error\n";

// The schedule of these options (warm-up and duration) with a record per request, not taken.
Run plan_run(const DriveOptions& o);
// T0 (11.5.3 step 1), once set-up is done: now, or with --release-at once the wall clock reads
// it (its lateness kept in run for the result file).
std::int64_t read_t0(const DriveOptions& o, Run& run) noexcept;
// After the schedule ran: the records file, the samples and the result's figures.
void publish(const Run& run, const DriveOptions& o, Recorder& recorder);

std::string format_load_records(const Run& run);
// The figures of the result file; iterations and warm-up are the schedule's counts.
LoadReport summarise(const Run& run, const DriveOptions& o);
// The response times (received − intended) of the measured requests without error, in order.
void record_samples(const Run& run, Recorder& recorder);

}  // namespace ipclab::load
