// tcp: loopback (or any) TCP with TCP_NODELAY on both sides (unless --nodelay off); one
// connection at a time.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../error.hpp"
#include "inet.hpp"
#include "transport.hpp"

namespace ipclab {

namespace {

void set_nodelay(int fd) {
  int one = 1;
  if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
    throw_io("setsockopt(TCP_NODELAY)");
}

class TcpServer final : public StreamServer {
 public:
  TcpServer(const InetEndpoint& endpoint, bool nodelay, int backlog) : nodelay_(nodelay) {
    const auto where = detail::resolve(endpoint, SOCK_STREAM, true);
    fd_ = ::socket(where.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw_io("socket");
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd_, reinterpret_cast<const sockaddr*>(&where.addr), where.length) != 0)
      throw_io("bind " + to_string(endpoint));
    if (::listen(fd_, backlog) != 0) throw_io("listen");
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &len) != 0)
      throw_io("getsockname");
    endpoint_ = detail::describe_address(&bound, len);
  }
  ~TcpServer() override { ::close(fd_); }

  std::string endpoint() const override { return endpoint_; }

  bool next_client(Stream& out) override {
    for (;;) {
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0) {
        out = Stream(c, c);
        if (nodelay_) set_nodelay(c);
        return true;
      }
      if (errno == EINTR || errno == ECONNABORTED) continue;
      throw_io("accept");
    }
  }

 private:
  int fd_ = -1;
  bool nodelay_;
  std::string endpoint_;
};

}  // namespace

std::unique_ptr<StreamServer> listen_tcp(const InetEndpoint& endpoint, bool nodelay,
                                         int backlog) {
  return std::make_unique<TcpServer>(endpoint, nodelay, backlog);
}

namespace {

bool is_127_0_0_1(const detail::ResolvedAddress& where) {
  if (where.family != AF_INET) return false;
  const auto* sin = reinterpret_cast<const sockaddr_in*>(&where.addr);
  return sin->sin_addr.s_addr == htonl(INADDR_LOOPBACK);
}

// A socket for a resolved address, not connected yet: TCP_NODELAY (when asked) and, when source
// is given, bound to 127.1.b.c.
Stream make_socket(const detail::ResolvedAddress& where,
                   const std::optional<std::uint64_t>& source, bool nodelay) {
  const int fd = ::socket(where.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw_io("socket");
  Stream s(fd, fd);
  if (nodelay) set_nodelay(fd);  // kept by connect, so set before it, outside a short's sample
  if (source) {
    int one = 1;
    if (::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one) != 0)
      throw_io("setsockopt(IP_BIND_ADDRESS_NO_PORT)");
    // k = i mod 65280, 127.1.(k / 255).(k mod 255): c stays below 255 (11.2).
    const auto k = static_cast<std::uint32_t>(*source % 65280);
    sockaddr_in from{};
    from.sin_family = AF_INET;
    from.sin_addr.s_addr = htonl((127u << 24) | (1u << 16) | ((k / 255) << 8) | (k % 255));
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&from), sizeof from) != 0)
      throw_io("bind to source 127.1." + std::to_string(k / 255) + "." + std::to_string(k % 255));
  }
  return s;
}

void connect_socket(const Stream& s, const detail::ResolvedAddress& where,
                    const InetEndpoint& endpoint) {
  int rc;
  do {
    rc = ::connect(s.read_fd(), reinterpret_cast<const sockaddr*>(&where.addr), where.length);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) throw_io("connect " + to_string(endpoint));
}

}  // namespace

Stream connect_tcp(const InetEndpoint& endpoint, bool nodelay) {
  const auto where = detail::resolve(endpoint, SOCK_STREAM, false);
  Stream s = make_socket(where, std::nullopt, nodelay);
  connect_socket(s, where, endpoint);
  return s;
}

StreamConnector tcp_connector(const InetEndpoint& endpoint, bool nodelay,
                              bool rotate_sources) {
  const auto where = detail::resolve(endpoint, SOCK_STREAM, false);
  const bool rotate = rotate_sources && is_127_0_0_1(where);
  StreamConnector c;
  c.prepare = [where, rotate, nodelay](std::uint64_t i) {
    return make_socket(where, rotate ? std::optional<std::uint64_t>(i) : std::nullopt, nodelay);
  };
  c.connect = [where, endpoint](Stream& s) { connect_socket(s, where, endpoint); };
  return c;
}

}  // namespace ipclab
