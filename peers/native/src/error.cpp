#include "error.hpp"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace ipclab {

std::string_view kind_name(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::internal: return "internal";
    case ErrorKind::usage: return "usage";
    case ErrorKind::payload_mismatch: return "payload-mismatch";
    case ErrorKind::protocol: return "protocol";
    case ErrorKind::io: return "io";
    case ErrorKind::timeout: return "timeout";
    case ErrorKind::unsupported: return "unsupported";
  }
  return "internal";
}

void throw_io_errno(const std::string& what, int err) {
  throw PeerError(ErrorKind::io, what + ": " + std::strerror(err));
}

void throw_io(const std::string& what) { throw_io_errno(what, errno); }

void print_line(std::string_view text) noexcept {
  std::string line;
  line.reserve(text.size() + 14);
  line += "ipclab-peer: ";
  line += text;
  line += '\n';
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace ipclab
