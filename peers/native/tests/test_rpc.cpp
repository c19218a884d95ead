// The RPC mechanisms of section 10, run as the orchestrator runs them: a `serve` process and a
// `drive` process of this peer per case.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "support.hpp"

namespace ipclab {
namespace {

using test::connections_with;
using test::new_connections;
using test::Server;
using test::TempDir;

using test::DriveRun;
using test::drive;

std::vector<std::string> sizes(std::uint32_t request, std::uint32_t response) {
  return {"--request-size", std::to_string(request), "--response-size", std::to_string(response)};
}

class EveryRpc : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryRpc, BytesAndRecordsRoundTripThenStdinEofStops) {
  const std::string mech = GetParam();
  TempDir dir;
  Server server({"serve", "--mechanism", mech, "--endpoint", "127.0.0.1:0", "--seed", "9"});
  ASSERT_TRUE(server.ready());
  EXPECT_EQ(server.ready_json()["mechanism"], mech);
  if (mech == "corba") {
    EXPECT_EQ(server.endpoint().rfind("IOR:", 0), 0u);
  } else {
    EXPECT_EQ(server.endpoint().rfind("127.0.0.1:", 0), 0u);
    EXPECT_NE(server.endpoint(), "127.0.0.1:0");
  }

  const auto ok = [&](const DriveRun& run, std::uint64_t samples) {
    EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
    EXPECT_EQ(run.child.err, "");
    EXPECT_EQ(run.result["status"], "ok");
    EXPECT_EQ(run.result["mechanism"], mech);
    EXPECT_EQ(run.samples.size(), samples);
  };
  std::vector<std::string> args = sizes(16, 16);
  args.insert(args.end(), {"--warmup", "5", "--seed", "9"});
  DriveRun run = drive(mech, server.endpoint(), dir, 50, args);
  ok(run, 50);
  EXPECT_EQ(run.result["payload"], "bytes");
  EXPECT_TRUE(run.result["sequence_length"].is_null());

  args = sizes(1 << 20, 1 << 20);
  args.insert(args.end(), {"--seed", "9"});
  ok(drive(mech, server.endpoint(), dir, 3, args), 3);
  args = sizes(0, 1000);
  args.insert(args.end(), {"--seed", "9"});
  ok(drive(mech, server.endpoint(), dir, 3, args), 3);  // asymmetric, empty request

  for (const char* kind : {"small", "medium", "large"}) {
    SCOPED_TRACE(kind);
    run = drive(mech, server.endpoint(), dir, 10,
                {"--payload", kind, "--sequence-length", "7", "--warmup", "2"});
    ok(run, 10);
    EXPECT_EQ(run.result["payload"], kind);
    EXPECT_EQ(run.result["sequence_length"], 7);
    EXPECT_EQ(run.result["request_size"], 0);
  }
  ok(drive(mech, server.endpoint(), dir, 2, {"--payload", "large", "--sequence-length", "0"}), 2);

  server.close_stdin();
  const test::ChildResult end = server.wait();
  EXPECT_EQ(end.exit_code, 0) << end.err;
}

TEST_P(EveryRpc, FlippedResponseIsAPayloadMismatch) {
  const std::string mech = GetParam();
  TempDir dir;
  Server server({"serve", "--mechanism", mech, "--endpoint", "127.0.0.1:0", "--fault",
                 "flip-response-byte"});
  ASSERT_TRUE(server.ready());
  DriveRun run = drive(mech, server.endpoint(), dir, 5, sizes(16, 16));
  EXPECT_EQ(run.child.exit_code, 3) << run.child.err;
  EXPECT_NE(run.child.err.find("payload mismatch at offset 15 (sequence 0)"), std::string::npos)
      << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "payload-mismatch");
  run = drive(mech, server.endpoint(), dir, 5, {"--payload", "medium"});
  EXPECT_EQ(run.child.exit_code, 3) << run.child.err;
  EXPECT_NE(run.child.err.find("field n2"), std::string::npos) << run.child.err;
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait().exit_code, 0);
}

TEST_P(EveryRpc, CorruptedRequestsSurfaceThroughFinish) {
  const std::string mech = GetParam();
  TempDir dir;
  Server server({"serve", "--mechanism", mech, "--endpoint", "127.0.0.1:0", "--seed", "2"});
  ASSERT_TRUE(server.ready());
  std::vector<std::string> args = sizes(16, 0);
  args.insert(args.end(), {"--seed", "1"});
  const DriveRun run = drive(mech, server.endpoint(), dir, 4, args);
  EXPECT_EQ(run.child.exit_code, 3) << run.child.err;
  EXPECT_NE(run.child.err.find("server received 4 corrupted request payloads"), std::string::npos)
      << run.child.err;
}

TEST_P(EveryRpc, RefusedConnectionIsIo) {
  TempDir dir;
  // The endpoint of a server that has stopped: nothing listens there any more.
  Server server({"serve", "--mechanism", GetParam(), "--endpoint", "127.0.0.1:0"});
  ASSERT_TRUE(server.ready());
  const std::string endpoint = server.endpoint();
  server.signal(SIGTERM);
  server.wait();
  const DriveRun run = drive(GetParam(), endpoint, dir, 1, {"--payload", "small",
                                                            "--io-timeout", "5"});
  EXPECT_EQ(run.child.exit_code, 5) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "io");
}

TEST_P(EveryRpc, SilentServerIsATimeout) {
  const std::string mech = GetParam();
  if (mech == "corba") GTEST_SKIP() << "needs an IOR; the timeout is omniORB's call timeout";
  // The kernel completes the handshake on a listening socket nobody accepts or answers on.
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 16), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  TempDir dir;
  const DriveRun run = drive(mech, "127.0.0.1:" + std::to_string(ntohs(addr.sin_port)), dir, 1,
                             {"--payload", "small", "--io-timeout", "0.5"});
  ::close(fd);
  EXPECT_EQ(run.child.exit_code, 6) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "timeout");
}

INSTANTIATE_TEST_SUITE_P(Peer, EveryRpc, ::testing::ValuesIn(test::rpc_mechanisms()),
                         test::param_name);

// short over rest (11.3): one HTTP connection per call (Connection: close), finish over one
// more; the corrupted count is the server's across connections.
TEST(Rpc, RestShortOpensOneConnectionPerCall) {
  TempDir dir;
  Server server({"serve", "--mechanism", "rest", "--endpoint", "127.0.0.1:0", "--seed", "4"});
  ASSERT_TRUE(server.ready());
  const std::set<unsigned> before = connections_with(server.endpoint());
  std::vector<std::string> args = sizes(100, 300);
  args.insert(args.end(), {"--pattern", "short", "--warmup", "4", "--seed", "4"});
  const DriveRun run = drive("rest", server.endpoint(), dir, 25, args);
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.result["status"], "ok");
  EXPECT_EQ(run.result["pattern"], "short");
  EXPECT_EQ(run.samples.size(), 25u);
  EXPECT_EQ(new_connections(before, connections_with(server.endpoint())), 4u + 25u + 1u);

  // A client with another seed sends corrupted requests: finish, on its own connection, counts
  // them across all the calls' connections.
  args = sizes(16, 0);
  args.insert(args.end(), {"--pattern", "short", "--seed", "5"});
  const DriveRun bad = drive("rest", server.endpoint(), dir, 3, args);
  EXPECT_EQ(bad.child.exit_code, 3) << bad.child.err;
  EXPECT_NE(bad.child.err.find("server received 3 corrupted request payloads"), std::string::npos)
      << bad.child.err;
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

TEST(Rpc, MaxPayloadOverGrpc) {
  TempDir dir;
  Server server({"serve", "--mechanism", "grpc", "--endpoint", "127.0.0.1:0"});
  ASSERT_TRUE(server.ready());
  const DriveRun run = drive("grpc", server.endpoint(), dir, 1, sizes(134217728, 134217728), {},
                             60000);
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.samples.size(), 1u);
}

TEST(Rpc, StructuredPayloadOnAFrameMechanismIsUnsupported) {
  TempDir dir;
  const DriveRun run = drive("tcp", "127.0.0.1:9", dir, 1, {"--payload", "small"});
  EXPECT_EQ(run.child.exit_code, 7) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "unsupported");
  EXPECT_EQ(run.result["payload"], "small");
  EXPECT_EQ(run.result["sequence_length"], 5);
}

TEST(Rpc, StructuredPayloadWithByteSizesIsUsage) {
  TempDir dir;
  DriveRun run = drive("grpc", "127.0.0.1:9", dir, 1, {"--payload", "small", "--request-size", "1"});
  EXPECT_EQ(run.child.exit_code, 2) << run.child.err;
  run = drive("grpc", "127.0.0.1:9", dir, 1,
              {"--payload", "small", "--request-size", "0", "--response-size", "0",
               "--sequence-length", "1000001"});
  EXPECT_EQ(run.child.exit_code, 2) << run.child.err;
  run = drive("grpc", "127.0.0.1:9", dir, 1, {"--payload", "huge"});
  EXPECT_EQ(run.child.exit_code, 2) << run.child.err;
}

TEST(Rpc, UnbuiltFrameworksAreUnsupported) {
  TempDir dir;
  for (const char* mech : {"rmi"}) {
    const DriveRun run = drive(mech, "127.0.0.1:9", dir, 1, sizes(1, 1));
    EXPECT_EQ(run.child.exit_code, 7) << run.child.err;
    const test::ChildResult s =
        test::run_peer({"serve", "--mechanism", mech, "--endpoint", "127.0.0.1:0"});
    EXPECT_EQ(s.exit_code, 7) << s.err;
  }
}

}  // namespace
}  // namespace ipclab
