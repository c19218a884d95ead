// udp: one datagram per frame. The server answers each datagram's source address; the client
// connects its socket to the server so it can use send/recv.
#include <sys/socket.h>
#include <unistd.h>

#include "../error.hpp"
#include "inet.hpp"
#include "transport.hpp"

namespace ipclab {

BoundUdp bind_udp(const std::string& endpoint) {
  const auto where = detail::resolve(endpoint, SOCK_DGRAM, true);
  BoundUdp out;
  out.fd = ::socket(where.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (out.fd < 0) throw_io("socket");
  if (::bind(out.fd, reinterpret_cast<const sockaddr*>(&where.addr), where.length) != 0) {
    const int err = errno;
    ::close(out.fd);
    throw_io_errno("bind " + endpoint, err);
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  if (::getsockname(out.fd, reinterpret_cast<sockaddr*>(&bound), &len) != 0) throw_io("getsockname");
  out.endpoint = detail::describe_address(&bound, len);
  return out;
}

int connect_udp(const std::string& endpoint) {
  const auto where = detail::resolve(endpoint, SOCK_DGRAM, false);
  const int fd = ::socket(where.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw_io("socket");
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&where.addr), where.length) != 0) {
    const int err = errno;
    ::close(fd);
    throw_io_errno("connect " + endpoint, err);
  }
  try {
    } catch (...) {
    ::close(fd);
    throw;
  }
  return fd;
}

}  // namespace ipclab
