// burst (PROTOCOL.md 11.4): what each side records per connection, and the two CSV files it
// becomes. The server keeps clock readings, not durations (a phase is the difference of two
// readings, often taken by two tasks); the phases are derived only when the file is written.
// Formatting never allocates, so a server can write its file from its SIGTERM handler.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ipclab::burst {

// A connection's outcome on either side (the `error` column); none is an empty field.
// not_sent: load (11.5.3), a request of a connection that died before it.
enum class ConnError : std::int32_t {
  none, eof, reset, protocol, payload_mismatch, io, lost, refused, timeout, not_sent
};
std::string_view conn_error_name(ConnError e) noexcept;

// One accepted connection's clock readings (CLOCK_MONOTONIC ns; 0: not taken). Lives in memory
// shared by every thread and process of the server, zero-filled, indexed by conn_index.
struct ConnTimes {
  std::int64_t accept_start = 0;       // the accept call that returned it starts
  std::int64_t accept_end = 0;         // ... returns
  std::int64_t next_accept_start = 0;  // the same acceptor's next accept call starts
  std::int64_t spawn_start = 0;        // thread create / fork / hand-off starts
  std::int64_t spawn_end = 0;          // ... returns in the caller
  std::int64_t task_start = 0;         // the task's first instruction for this connection
  std::int64_t transfer_start = 0;     // the first read of the request starts
  std::int64_t transfer_end = 0;       // the write completing the response returns
  std::int64_t close_end = 0;          // the serving task's close returns
  std::int32_t worker = 0;
  std::int32_t error = 0;              // ConnError
  std::int32_t done = 0;               // 1 once the task has written everything (release store)

  void finish(ConnError e, std::int64_t closed) noexcept {
    error = static_cast<std::int32_t>(e);
    close_end = closed;
    std::atomic_ref<std::int32_t>(done).store(1, std::memory_order_release);
  }
  bool finished() const noexcept {
    return std::atomic_ref<const std::int32_t>(done).load(std::memory_order_acquire) == 1;
  }
};

inline constexpr std::int64_t kEmpty = -1;  // a phase that does not apply

// The CSV files' pieces (no allocation, no locale): text; a decimal field and its comma, the
// field empty for kEmpty. Each returns the new end.
char* put_text(char* out, std::string_view text) noexcept;
char* put_field(char* out, std::int64_t v) noexcept;

// The six phases of one connection (kEmpty where not applicable or not taken).
struct Phases {
  std::int64_t accept, loop, spawn, start_delay, transfer, total;
  ConnError error;
};
Phases phases_of(const ConnTimes& t) noexcept;

inline constexpr std::string_view kPhasesHeader =
    "conn_index,accept_ns,loop_ns,spawn_ns,start_delay_ns,transfer_ns,total_ns,accept_start_ns,"
    "worker,error\n";

// Room format_phases needs for `count` rows.
std::size_t phases_capacity(std::size_t count) noexcept;
// Writes the header and the rows of times[0, count) to buf; returns the bytes written.
// Async-signal-safe: no allocation, no locale.
std::size_t format_phases(const ConnTimes* times, std::size_t count, char* buf) noexcept;

// One client connection (11.4 "Client", step 3). Shared between the client's processes.
struct ConnRecord {
  std::int64_t connect_start = 0;  // t0
  std::int64_t connect_ns = 0;     // t1 - t0
  std::int64_t response_ns = 0;    // t2 - t1; kEmpty if the connect failed
  std::int64_t total_ns = 0;       // t3 - t0, up to the failure
  std::int64_t end = 0;            // t3, for the burst's duration
  std::int32_t process = 0, connector = 0;
  std::int32_t error = 0;          // ConnError
  std::int32_t done = 0;
};

inline constexpr std::int64_t kSlowConnectNs = 1'000'000'000;  // the first SYN's RTO

inline constexpr std::string_view kRecordsHeader =
    "conn_index,process,connector,connect_start_ns,connect_ns,response_ns,total_ns,error,"
    "slow_connect\n";
std::string format_records(const ConnRecord* records, std::size_t count);

}  // namespace ipclab::burst
