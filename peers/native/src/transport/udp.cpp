// udp: one datagram per frame. The server answers each datagram's source address; the client
// connects its socket to the server so it can use send/recv.
#include <sys/socket.h>
#include <unistd.h>

#include "../error.hpp"
#include "../frame.hpp"
#include "inet.hpp"
#include "transport.hpp"

namespace ipclab {

DatagramSocket bind_udp(const InetEndpoint& endpoint) {
  const auto where = detail::resolve(endpoint, SOCK_DGRAM, true);
  const int fd = ::socket(where.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw_io("socket");
  DatagramSocket s(fd, {}, kUdpMaxPayload);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&where.addr), where.length) != 0)
    throw_io("bind " + to_string(endpoint));
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len) != 0) throw_io("getsockname");
  s.set_endpoint(detail::describe_address(&bound, len));
  return s;
}

DatagramSocket connect_udp(const InetEndpoint& endpoint) {
  const auto where = detail::resolve(endpoint, SOCK_DGRAM, false);
  const int fd = ::socket(where.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw_io("socket");
  DatagramSocket s(fd, to_string(endpoint), kUdpMaxPayload);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&where.addr), where.length) != 0)
    throw_io("connect " + to_string(endpoint));
  return s;
}

}  // namespace ipclab
