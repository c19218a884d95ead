#include "timeout.hpp"

#include <time.h>

#include <cerrno>
#include <csignal>

#include "../error.hpp"

namespace ipclab {

std::atomic<bool> g_receive_timed_out{false};
std::atomic<std::int64_t> g_receive_deadline_ns{0};

void throw_timeout() {
  throw PeerError(ErrorKind::timeout, "no data received within --io-timeout");
}

std::int64_t monotonic_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

namespace {

static_assert(std::atomic<std::int64_t>::is_always_lock_free, "used in a signal handler");
static_assert(std::atomic<bool>::is_always_lock_free, "used in a signal handler");

timer_t g_timer;
std::int64_t g_timeout_ns = 0;

void arm_timer_in(std::int64_t ns) noexcept {
  itimerspec spec{};
  spec.it_value.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  spec.it_value.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  ::timer_settime(g_timer, 0, &spec, nullptr);
}

// Async-signal-safe: atomics, clock_gettime, timer_settime.
void on_timer(int) {
  const int saved_errno = errno;
  const std::int64_t deadline = g_receive_deadline_ns.load(std::memory_order_relaxed);
  const std::int64_t now = monotonic_ns();
  if (deadline != 0 && now >= deadline) {
    g_receive_timed_out.store(true, std::memory_order_relaxed);
    arm_timer_in(10'000'000);  // again, in case the read had not begun yet
  } else if (deadline != 0) {
    arm_timer_in(deadline - now);
  } else {
    arm_timer_in(g_timeout_ns);
  }
  errno = saved_errno;
}

}  // namespace

ReceiveWatchdog::ReceiveWatchdog(std::int64_t timeout_ns) {
  g_timeout_ns = timeout_ns;
  g_receive_timed_out.store(false, std::memory_order_relaxed);
  struct sigaction sa {};
  sa.sa_handler = on_timer;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: the signal must end a blocked read with EINTR
  if (::sigaction(SIGALRM, &sa, &previous_) != 0) throw_io("sigaction(SIGALRM)");
  sigevent ev{};
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = SIGALRM;
  if (::timer_create(CLOCK_MONOTONIC, &ev, &g_timer) != 0) throw_io("timer_create");
  timer_ = g_timer;
  arm_timer_in(timeout_ns);
}

ReceiveWatchdog::~ReceiveWatchdog() {
  ::timer_delete(timer_);
  ::sigaction(SIGALRM, &previous_, nullptr);
}

}  // namespace ipclab
