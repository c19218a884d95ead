// What a peer writes: the READY line (server), the samples file and the result file (client).
// PROTOCOL.md sections 5 and 7.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "tally.hpp"

namespace ipclab {

inline constexpr const char* kLanguage = "cpp";
inline constexpr const char* kClockName = "CLOCK_MONOTONIC";
// The contract version this peer follows (PROTOCOL.md, "Version").
inline constexpr int kContract = 6;

// "g++ 12.2.0" (or "clang++ ..."), from the compiler that built this peer.
std::string runtime_string();

// A JSON string literal, quoted and escaped.
std::string json_string(std::string_view s);

// "READY {...}\n"; `extra` (", \"name\": value" pairs) goes before the closing brace.
std::string ready_line(const std::string& endpoint, const std::string& mechanism, long pid,
                       const std::string& extra = {});
// Writes the READY line to stdout with one write call.
void announce_ready(const std::string& endpoint, const std::string& mechanism,
                    const std::string& extra = {});

// What a stream run adds to the result file (section 11.1 step 8).
struct StreamReport {
  std::uint64_t messages = 0;
  std::uint64_t message_size = 0;
  std::uint64_t windows = 0;
  std::uint64_t stream_ns = 0;  // MARK_ACK -> END_ACK
  std::uint64_t lost = 0;       // udp; else 0
  CpuFigures client_cpu;
  CpuFigures server_cpu;        // from END_ACK
};

// What a burst adds to the result file (section 11.4, "Files").
struct BurstReport {
  std::uint64_t connections = 0, connectors = 0, processes = 0;
  std::uint64_t ok = 0, failed = 0, slow_connects = 0;
  std::uint64_t burst_ns = 0;  // the release to the end of the last connection
  std::int64_t release_ns = 0;  // the release, CLOCK_MONOTONIC (as the records' connect_start_ns)
  std::optional<std::int64_t> release_late_ns;  // --release-at: the wall clock's delay past it
  std::vector<std::pair<std::string, std::uint64_t>> errors;  // kind -> count, counts > 0
};

// What a load run adds to the result file (section 11.5.3, "Files"); its request counts are
// the result's `iterations` (measured) and `warmup`.
struct LoadReport {
  std::uint64_t clients = 0, rate = 0, duration_ms = 0, warmup_ms = 0;
  std::string arrival;
  std::uint64_t measured = 0, warmup = 0;
  std::uint64_t ok = 0, failed = 0;
  std::vector<std::pair<std::string, std::uint64_t>> errors;  // kind -> count, counts > 0
  double achieved_per_s = 0;
  std::int64_t lateness_p99_ns = 0;
  std::optional<std::int64_t> release_late_ns;  // --release-at: T0's wall clock minus NS
};

struct ClientResult {
  std::optional<ErrorKind> error_kind;  // empty: status ok
  std::string error;
  std::string mechanism;
  std::string pattern;
  std::uint64_t request_size = 0;
  std::uint64_t response_size = 0;
  std::uint64_t warmup = 0;
  std::uint64_t iterations = 0;
  std::uint64_t samples = 0;
  long pid = 0;
  std::string payload = "bytes";
  std::optional<std::uint64_t> sequence_length;  // structured payloads only
  std::uint64_t warmup_samples = 0;  // written to the warm-up samples file
  std::optional<StreamReport> stream;  // pattern stream, once END_ACK has come
  std::optional<BurstReport> burst;    // pattern burst, once the burst has run
  std::optional<LoadReport> load;      // pattern load, once the schedule has run
};

std::string result_json(const ClientResult& r);

// Writes content to path + ".tmp-<pid>", then renames it into place. Throws PeerError(io).
void write_file_atomically(const std::string& path, const std::string& content);

// Raw little-endian int64 samples, buffered in memory and written in large chunks between
// round trips (never inside a timed region).
class SamplesWriter {
 public:
  SamplesWriter() = default;
  ~SamplesWriter();
  SamplesWriter(const SamplesWriter&) = delete;
  SamplesWriter& operator=(const SamplesWriter&) = delete;

  void open(const std::string& path, std::uint64_t expected);  // creates/truncates; io error
  void add(std::int64_t ns) {
    buffer_.push_back(ns);
    if (buffer_.size() == chunk_) flush();
  }
  void flush();          // throws PeerError(io)
  void close();          // flush + close; throws PeerError(io)
  std::uint64_t written() const noexcept { return written_; }  // samples on disk
  std::uint64_t count() const noexcept { return written_ + buffer_.size(); }

 private:
  int fd_ = -1;
  std::vector<std::int64_t> buffer_;
  std::size_t chunk_ = 1;
  std::uint64_t written_ = 0;
  std::string path_;
};

// Where a validated round trip's time goes (section 7): a measured one to the samples file, a
// warm-up one to the warm-up samples file when there is one. Called only after validation.
class Recorder {
 public:
  Recorder(SamplesWriter& measured, SamplesWriter* warmup, std::uint64_t warmup_count) noexcept
      : measured_(measured), warmup_(warmup), warmup_count_(warmup_count) {}
  void record(std::uint64_t sequence, std::int64_t ns) {
    if (sequence >= warmup_count_) measured_.add(ns);
    else if (warmup_ != nullptr) warmup_->add(ns);
  }
  // A measured sample that is no round trip (a stream's window).
  void record_measured(std::int64_t ns) { measured_.add(ns); }
  // stream: the run's figures for the result file (reported before validation).
  void report(const StreamReport& r) { stream_ = r; }
  const std::optional<StreamReport>& stream_report() const noexcept { return stream_; }
  // burst: the burst's figures (reported before a validation failure is thrown).
  void report(const BurstReport& r) { burst_ = r; }
  const std::optional<BurstReport>& burst_report() const noexcept { return burst_; }
  // load: the schedule's figures (reported before a validation failure is thrown).
  void report(const LoadReport& r) { load_ = r; }
  const std::optional<LoadReport>& load_report() const noexcept { return load_; }

 private:
  std::optional<StreamReport> stream_;
  std::optional<BurstReport> burst_;
  std::optional<LoadReport> load_;
  SamplesWriter& measured_;
  SamplesWriter* warmup_;
  std::uint64_t warmup_count_;
};

}  // namespace ipclab
