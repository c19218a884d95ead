// The flags of one command line (PROTOCOL.md section 1) and the readers every parser shares:
// cli.cpp's subcommands and each pattern's own flags (pattern_flags.cpp). Every mistake is a
// UsageError (exit 2) naming the flag.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ipclab {

// "--name" -> its value ("on" for a switch); looked up by std::string_view too.
using Flags = std::map<std::string, std::string, std::less<>>;

// Collects "--name value" pairs and switches of args (args[0] is the subcommand), rejecting
// unknown, repeated and value-less flags.
Flags collect_flags(const std::vector<std::string>& args, const std::vector<std::string>& known);

// A two-valued flag: true for its first value (the default), false for the second.
bool choice(const Flags& flags, const std::string& name, const char* first, const char* second);

const std::string& required(const Flags& flags, const std::string& name);

std::string nonempty_path(const Flags& flags, const std::string& name);

// A required number flag in lo ... hi.
std::uint64_t ranged(const Flags& flags, const std::string& name, std::uint64_t lo,
                     std::uint64_t hi);

}  // namespace ipclab
