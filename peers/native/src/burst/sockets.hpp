// burst (PROTOCOL.md 11.4): the sockets of a mechanism that carries bursts. A mechanism's row in
// mechanisms.cpp points at one of these; nothing else in burst/ knows the address family.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>

#include "endpoint.hpp"
#include "transport/inet.hpp"

namespace ipclab::burst {

struct Sockets {
  // A listening socket (close-on-exec) with `backlog`, SO_REUSEPORT when asked; `bound` is the
  // endpoint as READY names it and as a second listener of the same port is given. io on error.
  int (*listen)(const Endpoint& endpoint, std::uint32_t backlog, bool reuseport,
                std::string& bound);
  // The server's address, resolved once before the burst (by the transport's resolver).
  detail::ResolvedAddress (*address)(const Endpoint& endpoint);
  // The endpoint a second listener (epoll-reuseport) binds: the first one's bound endpoint.
  Endpoint (*same_port)(const std::string& bound);
};

extern const Sockets kTcpSockets;

}  // namespace ipclab::burst
