// --release-at (PROTOCOL.md 11.4.4 step 2, 11.5.3 step 1): clients on several hosts start at
// one instant agreed on the wall clock, the only clock the hosts share (each host's monotonic
// clock counts from its own boot). The burst client and every load client wait here.
#pragma once

#include <cstdint>

namespace ipclab {

// The release on both clocks, read back to back, so a monotonic time line can be placed on the
// agreed wall-clock one.
struct WallRelease {
  std::int64_t monotonic_ns = 0;  // CLOCK_MONOTONIC at the release, as now_ns()
  std::int64_t late_ns = 0;       // CLOCK_REALTIME at the release minus the instant, at least 0
};

// Sleeps the calling thread until CLOCK_REALTIME reads at_ns (ns since the epoch; returns at
// once when it is past), then reads the wall clock and right after it the monotonic clock. Sets
// the thread's timer slack to 1 ns.
WallRelease sleep_until_wall_clock(std::int64_t at_ns) noexcept;

}  // namespace ipclab
