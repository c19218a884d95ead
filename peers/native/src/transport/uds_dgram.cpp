// uds-dgram (PROTOCOL.md 4.5): a Unix domain datagram socket, one datagram per frame, message
// boundaries kept and nothing lost. The server binds the path and answers each datagram's
// source; the client binds PATH.<pid> (so the server has an address to answer to) and connects
// to PATH. Both raise their buffers as far as the system allows; Linux refuses a datagram longer
// than SO_SNDBUF - 32 (EMSGSIZE) and cannot allocate one above 4 MiB (ENOBUFS).
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "../error.hpp"
#include "../frame.hpp"
#include "transport.hpp"

namespace ipclab {

namespace {

constexpr std::size_t kLargestDatagram = 4194304;  // larger ones cannot be allocated
constexpr std::size_t kSndbufOverhead = 32;

// A datagram socket with SO_SNDBUF and SO_RCVBUF raised, and its largest payload:
// min(SO_SNDBUF as read back - 32, 4 MiB) - 24.
DatagramSocket open_raised_socket(const std::string& endpoint) {
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw_io("socket(AF_UNIX, SOCK_DGRAM)");
  const int as_far_as_allowed = INT_MAX;  // Linux caps at wmem_max / rmem_max and doubles it
  ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &as_far_as_allowed, sizeof as_far_as_allowed);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &as_far_as_allowed, sizeof as_far_as_allowed);
  int sndbuf = 0;
  socklen_t len = sizeof sndbuf;
  if (::getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) != 0) {
    const int err = errno;
    ::close(fd);
    throw_io_errno("getsockopt(SO_SNDBUF)", err);
  }
  const auto buffer = static_cast<std::size_t>(sndbuf);
  const std::size_t datagram =
      buffer < kSndbufOverhead + kHeaderSize ? kHeaderSize
                                             : std::min(buffer - kSndbufOverhead, kLargestDatagram);
  return DatagramSocket(fd, endpoint, static_cast<std::uint32_t>(datagram - kHeaderSize));
}

}  // namespace

std::uint32_t uds_dgram_max_payload() { return open_raised_socket({}).max_payload(); }

DatagramSocket bind_uds_dgram(const PathEndpoint& endpoint) {
  DatagramSocket s = open_raised_socket(endpoint.path);
  detail::bind_unix_path(s.fd(), endpoint.path);  // removed at exit by the lifecycle
  return s;
}

DatagramSocket connect_uds_dgram(const PathEndpoint& endpoint) {
  DatagramSocket s = open_raised_socket(endpoint.path);
  const std::string own = endpoint.path + "." + std::to_string(::getpid());
  detail::bind_unix_path(s.fd(), own);  // registered too: a SIGTERM removes it as well
  s.remove_on_close(own);
  detail::connect_unix(s.fd(), endpoint.path);
  return s;
}

}  // namespace ipclab
