// Contract 6's conditions of a connection (section 1): the rr server's --backlog, observed by
// connecting to its full accept queue, and short's --source, observed in the clients' source
// addresses in /proc/net/tcp; elsewhere each is unsupported. Their parsing is in
// test_conditions.cpp.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support.hpp"

namespace ipclab {
namespace {

using test::DriveRun;
using test::Server;
using test::TempDir;

// ---- --backlog -------------------------------------------------------------------------------

// Connects without blocking and waits up to 300 ms: whether the connection was made (a full
// accept queue drops a TCP SYN, so the connection waits for its retransmission; over a Unix
// socket the connect fails at once with EAGAIN). The socket is added to `open`.
bool connects(int family, const std::string& where, std::vector<int>& open) {
  const int fd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  open.push_back(fd);
  int rc;
  if (family == AF_UNIX) {
    sockaddr_un sun{};
    sun.sun_family = AF_UNIX;
    std::snprintf(sun.sun_path, sizeof sun.sun_path, "%s", where.c_str());
    rc = ::connect(fd, reinterpret_cast<sockaddr*>(&sun), sizeof sun);
  } else {
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    sin.sin_port = htons(static_cast<std::uint16_t>(std::stoul(where.substr(where.rfind(':') + 1))));
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    rc = ::connect(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin);
  }
  if (rc == 0) return true;
  if (errno != EINPROGRESS) return false;
  pollfd p{fd, POLLOUT, 0};
  if (::poll(&p, 1, 300) != 1) return false;
  int err = 0;
  socklen_t len = sizeof err;
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
  return err == 0;
}

// How many of six further connections the rr server's accept queue takes while it serves a
// first one that sends nothing: the backlog + 1 (Linux), or all six with the default 512.
int queued_connections(const std::string& mech, const std::vector<std::string>& extra) {
  TempDir dir;
  test::Pipes pipes;
  std::vector<std::string> args = {"serve", "--mechanism", mech, "--endpoint",
                                    test::server_endpoint(mech, dir, pipes)};
  args.insert(args.end(), extra.begin(), extra.end());
  Server server(args);
  EXPECT_TRUE(server.ready());
  if (!server.ready()) return -1;
  const int family = mech == "uds" ? AF_UNIX : AF_INET;
  std::vector<int> open;
  EXPECT_TRUE(connects(family, server.endpoint(), open));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // accepted: the server waits
  int made = 0;
  for (int i = 0; i < 6; ++i) made += connects(family, server.endpoint(), open) ? 1 : 0;
  for (const int fd : open) ::close(fd);
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
  return made;
}

TEST(Backlog, TheRrServerListensWithIt) {
  for (const char* mech : {"tcp", "uds"}) {
    SCOPED_TRACE(mech);
    const int small = queued_connections(mech, {"--backlog", "1"});
    EXPECT_GE(small, 1);
    EXPECT_LE(small, 3);  // 2 expected: the queue holds backlog + 1
    EXPECT_EQ(queued_connections(mech, {}), 6);
    EXPECT_EQ(queued_connections(mech, {"--backlog", "50"}), 6);
  }
}

TEST(Backlog, ElsewhereUnsupported) {
  TempDir dir;
  test::Pipes pipes;
  for (const char* mech : {"udp", "pipe", "fifo", "sysv-mq", "rest"}) {
    SCOPED_TRACE(mech);
    const std::string rpc = std::string(mech) == "rest" ? "127.0.0.1:0" : "";
    Server server({"serve", "--mechanism", mech, "--endpoint",
                   rpc.empty() ? test::server_endpoint(mech, dir, pipes) : rpc, "--backlog",
                   "512"},
                  std::string(mech) == "pipe" ? pipes.server_fds() : std::vector<int>{});
    EXPECT_FALSE(server.ready());
    const test::ChildResult end = server.wait();
    EXPECT_EQ(end.exit_code, 7) << end.err;
    EXPECT_NE(end.err.find("--backlog"), std::string::npos) << end.err;
  }
}

// ---- --source ----------------------------------------------------------------------------------

// The source addresses of the TCP connections to 127.0.0.1:port in /proc/net/tcp (TIME_WAIT
// included; the client, which closes first, keeps it), as "A.B.C.D:PORT".
std::set<std::string> sources_of(const std::string& endpoint) {
  const unsigned port = std::stoul(endpoint.substr(endpoint.rfind(':') + 1));
  std::istringstream table(test::read_file("/proc/net/tcp"));
  std::string line;
  std::getline(table, line);  // the heading
  std::set<std::string> out;
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote;
    fields >> slot >> local >> remote;
    const auto remote_ip = static_cast<std::uint32_t>(std::stoul(remote.substr(0, 8), nullptr, 16));
    if (std::stoul(remote.substr(9), nullptr, 16) != port || remote_ip != htonl(INADDR_LOOPBACK))
      continue;
    // The address is printed as the 32-bit word in memory: network order read natively.
    in_addr a{static_cast<in_addr_t>(std::stoul(local.substr(0, 8), nullptr, 16))};
    out.insert(std::string(::inet_ntoa(a)) + ":" +
               std::to_string(std::stoul(local.substr(9), nullptr, 16)));
  }
  return out;
}

// The new sources of `iterations` short connections with `extra` to a fresh tcp server.
std::vector<std::string> short_sources(const std::vector<std::string>& extra) {
  TempDir dir;
  Server server({"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0"});
  EXPECT_TRUE(server.ready());
  if (!server.ready()) return {};
  const std::set<std::string> before = sources_of(server.endpoint());
  std::vector<std::string> args = {"--pattern", "short", "--warmup", "2"};
  args.insert(args.end(), extra.begin(), extra.end());
  const DriveRun run = test::drive_bytes("tcp", server.endpoint(), dir, 10, 10, 20, args);
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.samples.size(), 20u);
  std::vector<std::string> fresh;
  for (const std::string& s : sources_of(server.endpoint()))
    if (before.count(s) == 0) fresh.push_back(s);
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
  return fresh;
}

// 2 warm-up connections, 20 measured and END's, in TIME_WAIT at the client (it closes first);
// and the link's first connection, made by the mechanism's row before the pattern starts (not
// bound, closed untimed), from 127.0.0.1 either way.
TEST(Source, OneConnectsFromTheKernelsChoiceAndRotateFrom127_1) {
  const auto count = [](const std::vector<std::string>& sources, const char* prefix) {
    std::size_t n = 0;
    for (const std::string& s : sources) n += s.rfind(prefix, 0) == 0 ? 1 : 0;
    return n;
  };
  const std::vector<std::string> one = short_sources({"--source", "one"});
  EXPECT_GE(one.size(), 23u);
  EXPECT_EQ(count(one, "127.0.0.1:"), one.size());
  for (const auto& extra : {std::vector<std::string>{}, {"--source", "rotate"}}) {
    const std::vector<std::string> rotated = short_sources(extra);
    EXPECT_GE(count(rotated, "127.1."), 23u);
    EXPECT_LE(count(rotated, "127.0.0.1:"), 1u);
    EXPECT_EQ(count(rotated, "127.1.") + count(rotated, "127.0.0.1:"), rotated.size());
  }
}

TEST(Source, OneElsewhereUnsupported) {
  TempDir dir;
  const std::vector<std::string> one = {"--pattern", "short", "--source", "one"};
  EXPECT_EQ(test::drive_bytes("uds", dir.file("x"), dir, 1, 1, 1, one).child.exit_code, 7);
  EXPECT_EQ(test::drive_bytes("rest", "127.0.0.1:1", dir, 1, 1, 1, one).child.exit_code, 7);
  EXPECT_EQ(test::drive_bytes("posix-mq", "posix:/ipclab-none", dir, 1, 1, 1, one).child.exit_code, 7);
  // rotate is today's short everywhere; another pattern is a usage error (above).
  EXPECT_EQ(test::drive_bytes("tcp", "127.0.0.1:1", dir, 1, 1, 1, {"--source", "one"})
                .child.exit_code, 2);
}

}  // namespace
}  // namespace ipclab
