// Name resolution for tcp and udp endpoints: transport/ and the burst sockets (burst/sockets.hpp).
#pragma once

#include <sys/socket.h>

#include <string>

#include "../endpoint.hpp"

namespace ipclab::detail {

struct ResolvedAddress {
  sockaddr_storage addr{};
  socklen_t length = 0;
  int family = AF_UNSPEC;
};

// HOST (numeric or a name) and PORT for the given socket type; io on failure.
ResolvedAddress resolve(const InetEndpoint& endpoint, int socktype, bool passive);

}  // namespace ipclab::detail
