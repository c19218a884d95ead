// Fuzz target: the command line of PROTOCOL.md section 1 (parse_command_line: flags, numbers,
// endpoints of every mechanism, faults, patterns). The arguments are the input's pieces between
// NUL bytes. The parser throws UsageError for every mistake (the peer then exits 2); any other
// exception, or a crash, fails the input.
#include "cli.hpp"
#include "error.hpp"
#include "support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> args =
      ipclab::fuzz::split_at_nul(std::string(reinterpret_cast<const char*>(data), size));
  try {
    ipclab::parse_command_line(args);
  } catch (const ipclab::UsageError&) {
  }
  return 0;
}
