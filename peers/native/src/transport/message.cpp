#include "message.hpp"

#include <sys/random.h>

#include <cstdio>

#include "../error.hpp"

namespace ipclab {

void MessageChannel::reopen() {
  throw PeerError(ErrorKind::unsupported, "this channel is not opened per message");
}

}  // namespace ipclab

namespace ipclab::detail {

int draw_sysv_key() {
  std::uint16_t r = 0;
  while (r == 0) {
    if (::getrandom(&r, sizeof r, 0) != static_cast<ssize_t>(sizeof r)) {
      if (errno == EINTR) continue;
      throw_io("getrandom");
    }
  }
  return static_cast<int>(0x1C1A0000u | r);
}

std::string describe_sysv_key(int key) {
  char text[32];
  std::snprintf(text, sizeof text, "sysv:0x%08x", static_cast<unsigned>(key));
  return text;
}

void throw_removed(const char* call) {
  throw PeerError(ErrorKind::io, std::string(call) + ": server's queue/semaphores were removed");
}

}  // namespace ipclab::detail
