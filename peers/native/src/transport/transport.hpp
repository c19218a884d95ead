// Setting up each mechanism of PROTOCOL.md section 4. Once set up, every stream mechanism is a
// Stream (stream.hpp) and udp is a socket used with sendto/recvfrom (server) or send/recv
// (connected client). One source file per mechanism.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

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
std::unique_ptr<StreamServer> listen_tcp(const std::string& endpoint);
std::unique_ptr<StreamServer> listen_uds(const std::string& path);
std::unique_ptr<StreamServer> serve_pipe(const std::string& endpoint);
std::unique_ptr<StreamServer> create_fifos(const std::string& directory);

Stream connect_tcp(const std::string& endpoint);
Stream connect_uds(const std::string& path);
Stream open_pipe_client(const std::string& endpoint);
Stream open_fifo_client(const std::string& directory);

// udp: a bound server socket and its "HOST:PORT"; a client socket connected to the server.
struct BoundUdp {
  int fd = -1;
  std::string endpoint;
};
BoundUdp bind_udp(const std::string& endpoint);
int connect_udp(const std::string& endpoint);

// Helpers shared by the mechanism files.
namespace detail {
std::string describe_address(const void* sockaddr_ptr, unsigned length);  // "HOST:PORT"
void check_fd_open(int fd);                                              // io error if not
}  // namespace detail

}  // namespace ipclab
