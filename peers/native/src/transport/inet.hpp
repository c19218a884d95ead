// Internal to transport/: name resolution for tcp and udp endpoints.
#pragma once

#include <sys/socket.h>

#include <string>

namespace ipclab::detail {

struct ResolvedAddress {
  sockaddr_storage addr{};
  socklen_t length = 0;
  int family = AF_UNSPEC;
};

// HOST:PORT (HOST numeric or a name, [v6]:PORT allowed) for the given socket type; io on failure.
ResolvedAddress resolve(const std::string& endpoint, int socktype, bool passive);

}  // namespace ipclab::detail
