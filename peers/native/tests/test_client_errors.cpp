// A client of ipclab-peer run as the orchestrator runs it, where no round trip can be made: a
// usage error (exit 2, nothing written), an unsupported combination (exit 7 with a result), a
// refused connection (io), a silent server (timeout), and a slow run that must not time out.
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "support.hpp"

namespace ipclab {
namespace {

using test::DriveRun;
using test::Pipes;
using test::TempDir;

TEST(Peer, UsageErrorsExitTwoAndWriteNothing) {
  TempDir dir;
  const test::ChildResult r =
      test::run_peer({"drive", "--mechanism", "tcp", "--endpoint", "127.0.0.1:1",
                      "--request-size", "16", "--response-size", "16", "--iterations", "-3",
                      "--samples-file", dir.file("s"), "--result-file", dir.file("r")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("ipclab-peer: usage: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_FALSE(test::exists(dir.file("s")));
  EXPECT_FALSE(test::exists(dir.file("r")));
  EXPECT_EQ(test::run_peer({"serve", "--mechanism", "tcp"}).exit_code, 2);
  EXPECT_EQ(test::run_peer({}).exit_code, 2);
}

TEST(Peer, UnsupportedIsExitSevenWithAResult) {
  TempDir dir;
  DriveRun run = test::drive_bytes("jni", "inproc", dir, 16, 16, 1);
  EXPECT_EQ(run.child.exit_code, 7) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "unsupported");
  EXPECT_EQ(run.result["mechanism"], "jni");
  run = test::drive_bytes("udp", "127.0.0.1:9", dir, 65484, 16, 1);
  EXPECT_EQ(run.child.exit_code, 7) << run.child.err;
  run = test::drive_bytes("udp", "127.0.0.1:9", dir, 16, 16, 1, {"--pattern", "short"});
  EXPECT_EQ(run.child.exit_code, 7) << run.child.err;
  run = test::drive_bytes("tcp", "127.0.0.1:9", dir, 16, 16, 1, {"--pattern", "flood"});
  EXPECT_EQ(run.child.exit_code, 7) << run.child.err;
  EXPECT_EQ(test::run_peer({"serve", "--mechanism", "jni", "--endpoint", "x"}).exit_code, 7);
}

TEST(Peer, ConnectionRefusedIsAnIoError) {
  TempDir dir;
  const test::Loopback port = test::bind_loopback(SOCK_STREAM);  // bound, not listening
  const DriveRun run = test::drive_bytes("tcp", port.endpoint, dir, 16, 16, 3);
  ::close(port.fd);
  EXPECT_EQ(run.child.exit_code, 5) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "io");
  EXPECT_EQ(run.result["samples"], 0);
  EXPECT_EQ(run.samples.size(), 0u);
}

TEST(Peer, SilentUdpServerIsATimeout) {
  TempDir dir;
  const test::Loopback silent = test::bind_loopback(SOCK_DGRAM);  // never answers
  const DriveRun run =
      test::drive_bytes("udp", silent.endpoint, dir, 16, 16, 3, {"--io-timeout", "0.2"});
  ::close(silent.fd);
  EXPECT_EQ(run.child.exit_code, 6) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "timeout");
}

TEST(Peer, SilentPipeServerIsATimeout) {
  TempDir dir;
  Pipes pipes;  // nobody serves the other ends; this process keeps them open
  const DriveRun run = test::drive_bytes("pipe", pipes.client_endpoint(), dir, 16, 16, 3,
                                         {"--io-timeout", "0.3", "--warmup", "0"},
                                         pipes.client_fds());
  EXPECT_EQ(run.child.exit_code, 6) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "timeout");
  EXPECT_NE(run.child.err.find("(sequence 0)"), std::string::npos) << run.child.err;
}

TEST(Peer, PipeTimeoutDoesNotFireOnASlowButSteadyRun) {
  // The timer re-arms toward each round trip's deadline: many round trips in total longer
  // than the timeout must not time out.
  TempDir dir;
  Pipes pipes;
  test::Server server({"serve", "--mechanism", "pipe", "--endpoint", pipes.server_endpoint()},
                      pipes.server_fds());
  ASSERT_TRUE(server.ready());
  const DriveRun run = test::drive_bytes("pipe", pipes.client_endpoint(), dir, 1 << 20, 1 << 20,
                                         200, {"--io-timeout", "0.2"}, pipes.client_fds());
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  pipes.close_all();
  EXPECT_EQ(server.wait().exit_code, 0);
}

}  // namespace
}  // namespace ipclab
