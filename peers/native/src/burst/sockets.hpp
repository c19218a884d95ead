// burst (PROTOCOL.md 11.4) and load (11.5): the sockets of a mechanism whose server models serve
// them. A mechanism's row in mechanisms.cpp points at one of these; nothing else in burst/ or
// load/ knows the address family.
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
  // nullptr without SO_REUSEPORT.
  Endpoint (*same_port)(const std::string& bound);
  bool burst;      // carries burst as well as load (capabilities' server_models)
  bool reuseport;  // SO_REUSEPORT exists for it (AF_UNIX has none: no epoll-reuseport)
  bool nodelay;    // TCP_NODELAY applies (--nodelay)
};

extern const Sockets kTcpSockets;
// uds (section 4): load only; the listener's path is created 0600 and removed at exit.
extern const Sockets kUdsSockets;

}  // namespace ipclab::burst
