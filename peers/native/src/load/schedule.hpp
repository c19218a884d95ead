// load (PROTOCOL.md 11.5.2): the schedule of intended starts, fixed in advance. Offsets are
// integer nanoseconds from T0; the client computes them all before T0.
#pragma once

#include <cstdint>
#include <vector>

namespace ipclab::load {

// The offsets o_0, o_1, ... of one schedule, one at a time.
class Arrivals {
 public:
  Arrivals(std::uint64_t seed, std::uint64_t rate, bool poisson) noexcept;
  std::int64_t next() noexcept;  // o_k of the next k

 private:
  std::uint64_t rate_;
  bool poisson_;
  std::uint64_t k_ = 0;
  std::uint64_t state_;  // poisson: splitmix64 (section 3) at seed XOR 3 × golden
  double sum_ = 0.0;     // poisson: s_k
};

// Every offset below limit_ns (the schedule of W + D ms), in request order.
std::vector<std::int64_t> schedule(std::uint64_t seed, std::uint64_t rate, bool poisson,
                                   std::int64_t limit_ns);
// The first `count` offsets (what the vectors give).
std::vector<std::int64_t> first_offsets(std::uint64_t seed, std::uint64_t rate, bool poisson,
                                        std::size_t count);

}  // namespace ipclab::load
