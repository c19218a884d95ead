// Error kinds and exit codes of PROTOCOL.md section 8, and the exception that carries them.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace ipclab {

enum class ErrorKind {
  internal = 1,
  usage = 2,
  payload_mismatch = 3,
  protocol = 4,
  io = 5,
  timeout = 6,
  unsupported = 7,
};

// The kind's name as written on stderr and in the result file, e.g. "payload-mismatch".
std::string_view kind_name(ErrorKind kind) noexcept;

constexpr int exit_code(ErrorKind kind) noexcept { return static_cast<int>(kind); }

// Thrown for every failure a peer reports; never on the normal path.
class PeerError : public std::runtime_error {
 public:
  PeerError(ErrorKind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

// A bad command line (section 1): exit 2, nothing else done. Thrown while parsing only.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_io(const std::string& what);          // appends strerror(errno)
[[noreturn]] void throw_io_errno(const std::string& what, int err);

// Writes "ipclab-peer: <text>\n" to stderr with one write call (no stdio buffering).
void print_line(std::string_view text) noexcept;

}  // namespace ipclab
