// Strict command-line parsing of PROTOCOL.md section 1. Every mistake is a UsageError (exit 2);
// a mechanism this peer does not implement parses (mechanism nullptr) and is reported as
// unsupported later (exit 7), and so does an unknown pattern. The mechanisms and the endpoint
// each takes come from the table (mechanisms.hpp), the endpoint grammar from endpoint.hpp.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "options.hpp"

namespace ipclab {

struct CapabilitiesCommand {};

using Command = std::variant<CapabilitiesCommand, ServeOptions, DriveOptions>;

// args excludes the program name: args[0] is the subcommand.
Command parse_command_line(const std::vector<std::string>& args);

}  // namespace ipclab
