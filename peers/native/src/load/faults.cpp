#include "load/faults.hpp"

#include <sys/mman.h>
#include <time.h>

#include <cerrno>
#include <new>

#include "error.hpp"
#include "patterns.hpp"  // now_ns

namespace ipclab::load {

namespace {

constexpr std::int64_t kSecondNs = 1'000'000'000;
constexpr std::int64_t kStallNs = 100'000'000;  // the first 100 ms of every second

void sleep_until(std::int64_t when) noexcept {
  const timespec ts{static_cast<time_t>(when / kSecondNs), static_cast<long>(when % kSecondNs)};
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

}  // namespace

Gate::Gate(Fault fault, std::uint64_t per_s) noexcept : fault_(fault) {
  const std::uint64_t bucket = per_s / 100 > 1 ? per_s / 100 : 1;
  interval_ns_ = per_s == 0 ? 0 : static_cast<std::int64_t>(kSecondNs / per_s);
  tolerance_ns_ = static_cast<std::int64_t>(bucket - 1) * interval_ns_;
}

Gate* Gate::create(const ServeOptions& o) {
  if (o.fault != Fault::stall && o.fault != Fault::capacity) return nullptr;
  static_assert(std::atomic<std::int64_t>::is_always_lock_free);  // shared between processes
  void* p = ::mmap(nullptr, sizeof(Gate), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                   -1, 0);
  if (p == MAP_FAILED) throw_io("mmap (load fault)");
  return new (p) Gate(o.fault, o.fault == Fault::capacity ? o.capacity_per_s : 0);
}

std::int64_t Gate::stall_end(std::int64_t read_ns) const noexcept {
  const std::int64_t since = read_ns - ready_.load();
  if (since < 0) return read_ns;
  const std::int64_t into = since % kSecondNs;
  return into < kStallNs ? read_ns - into + kStallNs : read_ns;
}

// One token: the response may go at max(now, next − tolerance), and the next token is due one
// interval after max(next, now).
std::int64_t Gate::take_token(std::int64_t now) noexcept {
  std::int64_t next = next_token_.load();
  for (;;) {
    const std::int64_t later = (next > now ? next : now) + interval_ns_;
    if (next_token_.compare_exchange_weak(next, later)) break;
  }
  const std::int64_t allowed = next - tolerance_ns_;
  return allowed > now ? allowed : now;
}

void Gate::hold(std::int64_t read_ns) noexcept {
  if (fault_ == Fault::stall) {
    const std::int64_t end = stall_end(read_ns);
    if (end > read_ns) sleep_until(end);
    return;
  }
  const std::int64_t now = now_ns();
  const std::int64_t when = take_token(now);
  if (when > now) sleep_until(when);
}

}  // namespace ipclab::load
