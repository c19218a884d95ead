#include "burst/sockets.hpp"

#include <netinet/in.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "error.hpp"
#include "transport/transport.hpp"

namespace ipclab::burst {

namespace {

int listen_tcp(const Endpoint& endpoint, std::uint32_t backlog, bool reuseport,
               std::string& bound) {
  const auto& e = endpoint_as<InetEndpoint>(endpoint);
  const auto where = detail::resolve(e, SOCK_STREAM, true);
  const int fd = ::socket(where.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw_io("socket");
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (reuseport && ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
    ::close(fd);
    throw_io("setsockopt(SO_REUSEPORT)");
  }
  sockaddr_storage got{};
  socklen_t len = sizeof got;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&where.addr), where.length) != 0 ||
      ::listen(fd, static_cast<int>(backlog)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&got), &len) != 0) {
    const int err = errno;
    ::close(fd);
    throw_io_errno("listen on " + to_string(e), err);
  }
  bound = detail::describe_address(&got, len);
  return fd;
}

detail::ResolvedAddress tcp_address(const Endpoint& endpoint) {
  return detail::resolve(endpoint_as<InetEndpoint>(endpoint), SOCK_STREAM, false);
}

Endpoint tcp_same_port(const std::string& bound) { return parse_inet(bound); }

// The transport's uds rules (transport/uds.cpp): refused if the path exists, mode 0600,
// registered so that every way the server exits removes it.
int listen_uds(const Endpoint& endpoint, std::uint32_t backlog, bool, std::string& bound) {
  const std::string& path = endpoint_as<PathEndpoint>(endpoint).path;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw_io("socket");
  try {
    detail::bind_unix_path(fd, path);
    if (::listen(fd, static_cast<int>(backlog)) != 0) throw_io("listen on " + path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  bound = path;
  return fd;
}

detail::ResolvedAddress uds_address(const Endpoint& endpoint) {
  const sockaddr_un sun = detail::unix_address(endpoint_as<PathEndpoint>(endpoint).path);
  detail::ResolvedAddress out;
  std::memcpy(&out.addr, &sun, sizeof sun);
  out.length = sizeof sun;
  out.family = AF_UNIX;
  return out;
}

}  // namespace

const Sockets kTcpSockets = {listen_tcp, tcp_address, tcp_same_port, true, true, true};
const Sockets kUdsSockets = {listen_uds, uds_address, nullptr, false, false, false};

}  // namespace ipclab::burst
