// Setting up each kernel mechanism of PROTOCOL.md section 4, from its typed endpoint
// (endpoint.hpp). Once set up, every stream mechanism is a Stream (stream.hpp), every datagram
// mechanism a DatagramSocket, every message channel a MessageChannel (message.hpp) and the
// file mechanisms a FileChannel (file.hpp). One source file per mechanism.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <sys/un.h>
#include <unistd.h>

#include "../endpoint.hpp"
#include "../frame.hpp"
#include "stream.hpp"

namespace ipclab {

// The server side of a stream mechanism: hands out one client connection at a time.
class StreamServer {
 public:
  virtual ~StreamServer() = default;
  // The endpoint as announced in READY.
  virtual std::string endpoint() const = 0;
  // Blocks until the next client; false when no further client can come (pipe: after one).
  virtual bool next_client(Stream& out) = 0;
  // True if the server serves exactly one client and then exits (pipe).
  virtual bool single_client() const { return false; }
};

// Each may throw PeerError (io). Files they create are registered for removal at shutdown.
// tcp: nodelay (--nodelay) sets TCP_NODELAY on every connection; false leaves Nagle on.
// backlog: listen()'s (--backlog, 512 by default: PROTOCOL.md 11.2).
std::unique_ptr<StreamServer> listen_tcp(const InetEndpoint& endpoint, bool nodelay,
                                         int backlog);
std::unique_ptr<StreamServer> listen_uds(const PathEndpoint& endpoint, int backlog);
std::unique_ptr<StreamServer> serve_pipe(const FdEndpoint& endpoint);
std::unique_ptr<StreamServer> create_fifos(const DirEndpoint& endpoint);

Stream connect_tcp(const InetEndpoint& endpoint, bool nodelay);
Stream connect_uds(const PathEndpoint& endpoint);

// Pattern short (11.2): connection i to the same server, in two steps. `prepare` makes the
// socket (tcp: TCP_NODELAY and, to 127.0.0.1 unless --source one, the bind to source address
// 127.1.b.c: k = i mod 65280, b = k / 255, c = k mod 255, port 0, IP_BIND_ADDRESS_NO_PORT;
// TIME_WAIT, kept by the client, which closes first, is spread over 65280 addresses); it runs
// before the sample's clock. `connect` connects it, inside the sample. Everything that does not
// depend on i (name resolution, the address) is done once, when the connector is made.
struct StreamConnector {
  std::function<Stream(std::uint64_t connection)> prepare;
  std::function<void(Stream&)> connect;
  explicit operator bool() const noexcept { return static_cast<bool>(prepare); }
};
// rotate_sources false (--source one): no bind, the kernel's choice of source (127.0.0.1 and an
// ephemeral port), as a hand-written client's connect.
StreamConnector tcp_connector(const InetEndpoint& endpoint, bool nodelay,
                              bool rotate_sources);
StreamConnector uds_connector(const PathEndpoint& endpoint);
Stream open_pipe_client(const FdEndpoint& endpoint);
Stream open_fifo_client(const DirEndpoint& endpoint);

// A datagram socket (udp, uds-dgram): one frame per datagram. A server's is bound and answers
// each datagram's source address; a client's is connected to the server. Owns the descriptor
// and, for a uds-dgram client, its own bound path (removed when this is destroyed).
class DatagramSocket {
 public:
  DatagramSocket(int fd, std::string endpoint, std::uint32_t max_payload) noexcept
      : fd_(fd), endpoint_(std::move(endpoint)), max_payload_(max_payload) {}
  DatagramSocket(DatagramSocket&& o) noexcept
      : fd_(o.fd_), endpoint_(std::move(o.endpoint_)), max_payload_(o.max_payload_),
        own_path_(std::move(o.own_path_)) {
    o.fd_ = -1;
    o.own_path_.clear();
  }
  DatagramSocket& operator=(DatagramSocket&&) = delete;
  DatagramSocket(const DatagramSocket&) = delete;
  ~DatagramSocket() {
    if (fd_ >= 0) ::close(fd_);
    if (!own_path_.empty()) ::unlink(own_path_.c_str());
  }

  int fd() const noexcept { return fd_; }
  const std::string& endpoint() const noexcept { return endpoint_; }  // as READY names it
  void set_endpoint(std::string endpoint) { endpoint_ = std::move(endpoint); }
  // A path this side created for itself, removed when the socket is destroyed.
  void remove_on_close(std::string path) { own_path_ = std::move(path); }
  // The largest payload this side sends or answers (udp 65483, uds-dgram section 4.5).
  std::uint32_t max_payload() const noexcept { return max_payload_; }
  // Room for any datagram this side accepts (a longer one still shows its real size through
  // MSG_TRUNC).
  std::size_t receive_buffer() const noexcept {
    return kHeaderSize + max_payload_ > 65536 ? kHeaderSize + max_payload_ : 65536;
  }

 private:
  int fd_;
  std::string endpoint_;
  std::uint32_t max_payload_;
  std::string own_path_;
};

DatagramSocket bind_udp(const InetEndpoint& endpoint);
DatagramSocket connect_udp(const InetEndpoint& endpoint);
// uds-dgram (4.5): the server binds the path (0600, refused if it exists, removed at exit); the
// client binds PATH.<pid> (0600) and connects to PATH. Both raise SO_SNDBUF/SO_RCVBUF.
DatagramSocket bind_uds_dgram(const PathEndpoint& endpoint);
DatagramSocket connect_uds_dgram(const PathEndpoint& endpoint);
// uds-dgram's largest payload on this machine, measured on a probe socket:
// min(SO_SNDBUF as read back after raising it - 32, 4194304) - 24.
std::uint32_t uds_dgram_max_payload();

// Helpers shared by the mechanism files.
namespace detail {
std::string describe_address(const void* sockaddr_ptr, unsigned length);  // "HOST:PORT"
void check_fd_open(int fd);                                              // io error if not
// Unix domain sockets (uds.cpp): binds fd to path with mode 0600 and registers the path for
// removal at exit; io "path exists" if the path exists. connect_unix retries on EINTR.
void bind_unix_path(int fd, const std::string& path);
void connect_unix(int fd, const std::string& path);
void connect_unix(int fd, const sockaddr_un& address, const std::string& path);
sockaddr_un unix_address(const std::string& path);  // io if the path is too long
}  // namespace detail

}  // namespace ipclab
