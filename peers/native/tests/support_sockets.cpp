// Test helpers (support.hpp): loopback sockets and the TCP connections to a port in
// /proc/net/tcp, the orchestrator's anonymous pipes, and a server endpoint for any frame
// mechanism.
#include "support.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sstream>
#include <stdexcept>

namespace ipclab::test {

std::set<unsigned> connections_with(const std::string& endpoint) {
  const unsigned port = std::stoul(endpoint.substr(endpoint.rfind(':') + 1));
  std::istringstream table(read_file("/proc/net/tcp"));
  std::string line;
  std::getline(table, line);  // the heading
  std::set<unsigned> clients;
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    const unsigned lport = std::stoul(local.substr(local.find(':') + 1), nullptr, 16);
    const unsigned rport = std::stoul(remote.substr(remote.find(':') + 1), nullptr, 16);
    if (state == "0A") continue;  // LISTEN
    if (lport == port) clients.insert(rport);
    else if (rport == port) clients.insert(lport);
  }
  return clients;
}

std::size_t new_connections(const std::set<unsigned>& before,
                            const std::set<unsigned>& after) {
  std::size_t n = 0;
  for (const unsigned p : after) n += before.count(p) == 0 ? 1 : 0;
  return n;
}

Loopback bind_loopback(int type) {
  Loopback out;
  out.fd = ::socket(AF_INET, type | SOCK_CLOEXEC, 0);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (out.fd < 0 || ::bind(out.fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0)
    throw std::runtime_error("cannot bind a loopback socket");
  socklen_t len = sizeof sin;
  ::getsockname(out.fd, reinterpret_cast<sockaddr*>(&sin), &len);
  out.endpoint = "127.0.0.1:" + std::to_string(ntohs(sin.sin_port));
  return out;
}

int connect_loopback(int type, const std::string& endpoint) {
  const int fd = ::socket(AF_INET, type | SOCK_CLOEXEC, 0);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sin.sin_port = htons(static_cast<std::uint16_t>(std::stoi(endpoint.substr(endpoint.rfind(':') + 1))));
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0)
    throw std::runtime_error("cannot connect to " + endpoint);
  return fd;
}

Pipes::Pipes() {
  EXPECT_EQ(::pipe2(req, O_CLOEXEC), 0);
  EXPECT_EQ(::pipe2(resp, O_CLOEXEC), 0);
}

std::string Pipes::server_endpoint() const {
  return "fd:" + std::to_string(req[0]) + "," + std::to_string(resp[1]);
}

std::string Pipes::client_endpoint() const {
  return "fd:" + std::to_string(resp[0]) + "," + std::to_string(req[1]);
}

void Pipes::close_all() {
  for (int* fd : {&req[0], &req[1], &resp[0], &resp[1]})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
}

std::string server_endpoint(const std::string& mech, const TempDir& dir, const Pipes& pipes) {
  if (mech == "tcp" || mech == "udp" || mech == "grpc") return "127.0.0.1:0";
  if (mech == "uds" || mech == "uds-dgram") return dir.file("peer.sock");
  if (mech == "fifo") return dir.path();
  if (mech == "pipe") return pipes.server_endpoint();
  if (mech == "file" || mech == "file-poll") {
    const std::string d = dir.file("frames");
    ::mkdir(d.c_str(), 0700);
    return d;
  }
  return "auto";
}

}  // namespace ipclab::test
