#include "cli_flags.hpp"

#include "error.hpp"
#include "numbers.hpp"

namespace ipclab {

namespace {

// Flags without a value (section 1's synopsis: [--void], [--one-way]); collected as "on".
bool is_switch(const std::string& name) { return name == "--void" || name == "--one-way"; }

}  // namespace

Flags collect_flags(const std::vector<std::string>& args, const std::vector<std::string>& known) {
  Flags flags;
  for (std::size_t i = 1; i < args.size(); i += 2) {
    const std::string& name = args[i];
    bool is_known = false;
    for (const auto& k : known) is_known = is_known || k == name;
    if (!is_known) {
      if (name.rfind("--", 0) == 0 && name.find('=') != std::string::npos)
        throw UsageError("unknown flag '" + name + "' (write --name value, not --name=value)");
      throw UsageError("unknown flag '" + name + "'");
    }
    if (flags.count(name) != 0) throw UsageError("flag " + name + " given more than once");
    if (is_switch(name)) {
      flags[name] = "on";
      --i;  // no value
      continue;
    }
    if (i + 1 >= args.size()) throw UsageError("flag " + name + " needs a value");
    flags[name] = args[i + 1];
  }
  return flags;
}

bool choice(const Flags& flags, const std::string& name, const char* first, const char* second) {
  const auto it = flags.find(name);
  if (it == flags.end() || it->second == first) return true;
  if (it->second == second) return false;
  throw UsageError("bad value for " + name + ": '" + it->second + "' (" + first + ", " + second +
                   ")");
}

const std::string& required(const Flags& flags, const std::string& name) {
  const auto it = flags.find(name);
  if (it == flags.end()) throw UsageError("missing required flag " + name);
  return it->second;
}

std::string nonempty_path(const Flags& flags, const std::string& name) {
  const std::string& path = required(flags, name);
  if (path.empty()) throw UsageError("bad value for " + name + ": empty path");
  return path;
}

std::uint64_t ranged(const Flags& flags, const std::string& name, std::uint64_t lo,
                     std::uint64_t hi) {
  const std::uint64_t v = parse_unsigned(name, required(flags, name), hi);
  if (v < lo)
    throw UsageError("bad value for " + name + ": " + std::to_string(lo) + " ... " +
                     std::to_string(hi));
  return v;
}

}  // namespace ipclab
