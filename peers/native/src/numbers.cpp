#include "numbers.hpp"

#include "error.hpp"

namespace ipclab {

std::uint64_t parse_unsigned(const std::string& flag, const std::string& value,
                             std::uint64_t max) {
  if (value.empty()) throw UsageError("bad value for " + flag + ": empty");
  std::uint64_t v = 0;
  for (char c : value) {
    if (c < '0' || c > '9')
      throw UsageError("bad value for " + flag + ": '" + value + "' is not an unsigned decimal");
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10)
      throw UsageError("bad value for " + flag + ": '" + value + "' overflows");
    v = v * 10 + d;
  }
  if (v > max)
    throw UsageError("bad value for " + flag + ": " + value + " is above " + std::to_string(max));
  return v;
}

std::int64_t parse_seconds_ns(const std::string& flag, const std::string& value) {
  // [0-9]+ ( "." [0-9]+ )?, positive; fractions below a nanosecond are dropped.
  const auto bad = [&](const char* why) {
    return UsageError("bad value for " + flag + ": '" + value + "' " + why);
  };
  const auto dot = value.find('.');
  const std::string whole = value.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : value.substr(dot + 1);
  if (whole.empty() || (dot != std::string::npos && frac.empty()))
    throw bad("is not a decimal number of seconds");
  for (char c : whole + frac)
    if (c < '0' || c > '9') throw bad("is not a decimal number of seconds");
  std::uint64_t secs = 0;
  for (char c : whole) {
    secs = secs * 10 + static_cast<std::uint64_t>(c - '0');
    if (secs > 1'000'000'000) throw bad("is too large");
  }
  std::int64_t ns = static_cast<std::int64_t>(secs) * 1'000'000'000;
  std::int64_t scale = 100'000'000;
  for (std::size_t i = 0; i < frac.size() && i < 9; ++i, scale /= 10)
    ns += (frac[i] - '0') * scale;
  if (ns <= 0) throw bad("must be positive");
  return ns;
}

}  // namespace ipclab
