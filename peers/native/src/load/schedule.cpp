#include "load/schedule.hpp"

#include <cmath>

#include "payload.hpp"  // kGolden

namespace ipclab::load {

namespace {

constexpr std::uint64_t kSecondNs = 1'000'000'000;

std::uint64_t splitmix_next(std::uint64_t& state) noexcept {
  state += kGolden;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

Arrivals::Arrivals(std::uint64_t seed, std::uint64_t rate, bool poisson) noexcept
    : rate_(rate), poisson_(poisson), state_(seed ^ (3 * kGolden)) {}

std::int64_t Arrivals::next() noexcept {
  const std::uint64_t k = k_++;
  if (!poisson_) {
    // ⌊k × 10⁹ / R⌋ exactly, without the product overflowing 64 bits for long schedules.
    const std::uint64_t q = k / rate_, r = k % rate_;
    return static_cast<std::int64_t>(q * kSecondNs + r * kSecondNs / rate_);
  }
  if (k == 0) return 0;
  // The same operations in the same order as the reference (generate.py), so that only ln's
  // rounding can differ.
  const double u = static_cast<double>((splitmix_next(state_) >> 11) + 1) * 0x1p-53;
  sum_ += -std::log(u) * 1e9 / static_cast<double>(rate_);
  return static_cast<std::int64_t>(std::floor(sum_));
}

std::vector<std::int64_t> schedule(std::uint64_t seed, std::uint64_t rate, bool poisson,
                                   std::int64_t limit_ns) {
  std::vector<std::int64_t> offsets;
  // fixed: exactly ⌈limit × R / 10⁹⌉ requests; poisson: about as many.
  const double expected = static_cast<double>(limit_ns) * static_cast<double>(rate) / 1e9;
  offsets.reserve(static_cast<std::size_t>(expected * 1.05) + 16);
  Arrivals arrivals(seed, rate, poisson);
  for (std::int64_t o = arrivals.next(); o < limit_ns; o = arrivals.next()) offsets.push_back(o);
  return offsets;
}

std::vector<std::int64_t> first_offsets(std::uint64_t seed, std::uint64_t rate, bool poisson,
                                        std::size_t count) {
  std::vector<std::int64_t> offsets;
  Arrivals arrivals(seed, rate, poisson);
  for (std::size_t i = 0; i < count; ++i) offsets.push_back(arrivals.next());
  return offsets;
}

}  // namespace ipclab::load
