// --io-timeout for the client, the same way for every mechanism: a POSIX timer signals the
// process (SIGALRM, handler without SA_RESTART, so a blocked read(2)/recv(2) returns EINTR).
// Not SO_RCVTIMEO: with a finite socket timeout every blocking receive arms and cancels a kernel
// timer, measured at 1-4% of a same-core round trip. Not a watchdog thread: a second thread
// slows every read/write (see lifecycle.cpp). The handler compares
// the clock with the current round trip's deadline: if it has passed it sets the timed-out flag
// and fires again in 10 ms until the client gives up; otherwise it re-arms itself for the
// deadline. The hot path pays one relaxed store per round trip; the timer fires about once per
// timeout period.
#pragma once

#include <signal.h>
#include <time.h>

#include <atomic>
#include <cstdint>

namespace ipclab {

extern std::atomic<bool> g_receive_timed_out;
extern std::atomic<std::int64_t> g_receive_deadline_ns;  // CLOCK_MONOTONIC ns; 0: none

inline bool receive_timed_out() noexcept {
  return g_receive_timed_out.load(std::memory_order_relaxed);
}
inline void arm_receive_deadline(std::int64_t deadline_ns) noexcept {
  g_receive_deadline_ns.store(deadline_ns, std::memory_order_relaxed);
}
inline void disarm_receive_deadline() noexcept {
  g_receive_deadline_ns.store(0, std::memory_order_relaxed);
}

[[noreturn]] void throw_timeout();

std::int64_t monotonic_ns() noexcept;

// One per process at a time (it owns SIGALRM while alive). Create it once the connection is
// established, so that connect/open are not interrupted.
class ReceiveWatchdog {
 public:
  explicit ReceiveWatchdog(std::int64_t timeout_ns);
  ~ReceiveWatchdog();
  ReceiveWatchdog(const ReceiveWatchdog&) = delete;
  ReceiveWatchdog& operator=(const ReceiveWatchdog&) = delete;

 private:
  timer_t timer_{};
  struct ::sigaction previous_ {};
};

}  // namespace ipclab
