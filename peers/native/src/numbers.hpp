// The number syntax of PROTOCOL.md section 1, shared by the command line and the endpoints:
// unsigned decimals (0-9 only) and positive decimal seconds. Mistakes are UsageErrors naming
// the flag.
#pragma once

#include <cstdint>
#include <string>

namespace ipclab {

std::uint64_t parse_unsigned(const std::string& flag, const std::string& value,
                             std::uint64_t max);
std::int64_t parse_seconds_ns(const std::string& flag, const std::string& value);

}  // namespace ipclab
