// A server of ipclab-peer run as the orchestrator runs it, facing what is not a well-behaved
// client: SIGTERM and SIGINT remove its socket and FIFOs, it refuses paths that exist, and a
// malformed frame ends a pipe server (exit 4) while tcp and udp servers go on.
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "support.hpp"

namespace ipclab {
namespace {

using test::ChildResult;
using test::Server;
using test::TempDir;

TEST(Peer, SigtermRemovesTheSocketAndExitsZero) {
  TempDir dir;
  Server server({"serve", "--mechanism", "uds", "--endpoint", dir.file("s")});
  ASSERT_TRUE(server.ready());
  ASSERT_TRUE(test::exists(dir.file("s")));
  server.signal(SIGTERM);
  const ChildResult end = server.wait();
  EXPECT_EQ(end.exit_code, 0);
  EXPECT_FALSE(test::exists(dir.file("s")));
}

TEST(Peer, SigintRemovesTheFifosAndExitsZero) {
  TempDir dir;
  Server server({"serve", "--mechanism", "fifo", "--endpoint", dir.path()});
  ASSERT_TRUE(server.ready());
  server.signal(SIGINT);  // while blocked opening req
  EXPECT_EQ(server.wait().exit_code, 0);
  EXPECT_FALSE(test::exists(dir.file("req")));
  EXPECT_FALSE(test::exists(dir.file("resp")));
}

TEST(Peer, ServerRefusesExistingPaths) {
  TempDir dir;
  { std::ofstream(dir.file("taken")) << "x"; }
  Server uds({"serve", "--mechanism", "uds", "--endpoint", dir.file("taken")});
  EXPECT_FALSE(uds.ready());
  const ChildResult r = uds.wait();
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_NE(r.err.find("path exists"), std::string::npos) << r.err;
  EXPECT_TRUE(test::exists(dir.file("taken")));  // not removed: it was not ours

  ::mkfifo(dir.file("resp").c_str(), 0600);
  Server fifo({"serve", "--mechanism", "fifo", "--endpoint", dir.path()});
  EXPECT_FALSE(fifo.ready());
  EXPECT_EQ(fifo.wait().exit_code, 5);
  EXPECT_FALSE(test::exists(dir.file("req")));  // created before the failure, then removed
  EXPECT_TRUE(test::exists(dir.file("resp")));
}

void send_raw(int fd, const std::vector<std::uint8_t>& bytes) {
  ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
}

TEST(Peer, PipeServerExitsFourOnAMalformedFrame) {
  test::Pipes pipes;
  Server server({"serve", "--mechanism", "pipe", "--endpoint", pipes.server_endpoint()},
                pipes.server_fds());
  ASSERT_TRUE(server.ready());
  send_raw(pipes.req[1], test::from_hex(test::vectors()["malformed"][0]["hex"]));
  const ChildResult r = server.wait();
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.err, "ipclab-peer: rejected frame: bad magic\n");
}

TEST(Peer, TcpServerGoesOnAfterAMalformedConnection) {
  TempDir dir;
  Server server({"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0"});
  ASSERT_TRUE(server.ready());
  const std::string ep = server.endpoint();
  const int fd = test::connect_loopback(SOCK_STREAM, ep);
  send_raw(fd, test::from_hex(test::vectors()["malformed"][5]["hex"]));  // huge length
  char c;
  EXPECT_EQ(::read(fd, &c, 1), 0);  // the server closed the connection without answering
  ::close(fd);
  const test::DriveRun run = test::drive_bytes("tcp", ep, dir, 16, 16, 5);
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  server.close_stdin();
  const ChildResult end = server.wait();
  EXPECT_EQ(end.exit_code, 0);
  EXPECT_EQ(end.err, "ipclab-peer: rejected frame: length too large\n");
}

TEST(Peer, UdpServerDropsBadDatagramsAndGoesOn) {
  TempDir dir;
  Server server({"serve", "--mechanism", "udp", "--endpoint", "127.0.0.1:0"});
  ASSERT_TRUE(server.ready());
  const std::string ep = server.endpoint();
  const int fd = test::connect_loopback(SOCK_DGRAM, ep);
  send_raw(fd, test::from_hex(test::vectors()["malformed"][1]["hex"]));  // bad version
  auto short_frame = test::from_hex(test::vectors()["frames"][0]["hex"]);  // 16 B announced
  short_frame.resize(short_frame.size() + 15);
  send_raw(fd, short_frame);  // 15 B sent
  send_raw(fd, {1, 2, 3});
  ::close(fd);
  const test::DriveRun run = test::drive_bytes("udp", ep, dir, 16, 16, 5);
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  server.close_stdin();
  const ChildResult end = server.wait();
  EXPECT_EQ(end.exit_code, 0);
  EXPECT_EQ(end.err,
            "ipclab-peer: rejected frame: bad version\n"
            "ipclab-peer: rejected frame: length mismatch\n"
            "ipclab-peer: rejected frame: truncated header\n");
}

}  // namespace
}  // namespace ipclab
