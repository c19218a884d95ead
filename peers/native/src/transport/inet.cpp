#include "inet.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>
#include <fcntl.h>

#include <cstring>

#include "../error.hpp"
#include "transport.hpp"

namespace ipclab::detail {

ResolvedAddress resolve(const InetEndpoint& hp, int socktype, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = socktype;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* res = nullptr;
  const std::string port = std::to_string(hp.port);
  const int rc = ::getaddrinfo(hp.host.c_str(), port.c_str(), &hints, &res);
  if (rc != 0 || res == nullptr)
    throw PeerError(ErrorKind::io, "cannot resolve '" + hp.host + "': " + ::gai_strerror(rc));
  ResolvedAddress out;
  std::memcpy(&out.addr, res->ai_addr, res->ai_addrlen);
  out.length = res->ai_addrlen;
  out.family = res->ai_family;
  ::freeaddrinfo(res);
  return out;
}

std::string describe_address(const void* sockaddr_ptr, unsigned length) {
  const auto* sa = static_cast<const sockaddr*>(sockaddr_ptr);
  char host[INET6_ADDRSTRLEN] = "?";
  unsigned port = 0;
  if (sa->sa_family == AF_INET && length >= sizeof(sockaddr_in)) {
    const auto* sin = static_cast<const sockaddr_in*>(sockaddr_ptr);
    ::inet_ntop(AF_INET, &sin->sin_addr, host, sizeof host);
    port = ntohs(sin->sin_port);
    return std::string(host) + ":" + std::to_string(port);
  }
  if (sa->sa_family == AF_INET6 && length >= sizeof(sockaddr_in6)) {
    const auto* sin6 = static_cast<const sockaddr_in6*>(sockaddr_ptr);
    ::inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof host);
    port = ntohs(sin6->sin6_port);
    return "[" + std::string(host) + "]:" + std::to_string(port);
  }
  return "?";
}

void check_fd_open(int fd) {
  if (::fcntl(fd, F_GETFD) < 0) throw_io("file descriptor " + std::to_string(fd));
}

}  // namespace ipclab::detail
