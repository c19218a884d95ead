#include "release_at.hpp"

#include <sys/prctl.h>
#include <time.h>

#include <cerrno>

#include "patterns.hpp"  // now_ns

namespace ipclab {

WallRelease sleep_until_wall_clock(std::int64_t at_ns) noexcept {
  const timespec at{static_cast<time_t>(at_ns / 1'000'000'000),
                    static_cast<long>(at_ns % 1'000'000'000)};
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);  // the default 50 µs would all be lateness
  // Absolute, so a wall-clock step while asleep still wakes at the instant; returns at once when
  // at_ns is past; a signal's handler must not cut the wait short.
  while (::clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, nullptr) == EINTR) {
  }
  // The wall clock first: its reading is then no later than the monotonic one's instant, so a
  // reader mapping the monotonic release onto the wall clock never finds it before at + late.
  timespec wall{};
  ::clock_gettime(CLOCK_REALTIME, &wall);
  WallRelease r;
  r.monotonic_ns = now_ns();
  const std::int64_t late =
      static_cast<std::int64_t>(wall.tv_sec) * 1'000'000'000 + wall.tv_nsec - at_ns;
  r.late_ns = late > 0 ? late : 0;  // < 0 only if the wall clock stepped back since the wake-up
  return r;
}

}  // namespace ipclab
