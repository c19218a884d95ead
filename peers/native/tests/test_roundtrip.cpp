// ipclab-peer run as the orchestrator runs it: a `serve` process (stdin held open, READY read
// from stdout) and a `drive` process, over every kernel stream and datagram mechanism (tcp, udp,
// uds, uds-dgram, pipe, fifo), with faults, and the samples only validated round trips make.
// The server's own faults and shutdown are in test_server_faults.cpp, the client's errors in
// test_client_errors.cpp, `capabilities` in test_capabilities.cpp.
#include <gtest/gtest.h>

#include "support.hpp"

namespace ipclab {
namespace {

using test::ChildResult;
using test::Server;
using test::TempDir;

using test::Pipes;
using test::server_endpoint;

using test::DriveRun;

DriveRun drive(const std::string& mech, const std::string& endpoint, const TempDir& dir,
               std::uint32_t request, std::uint32_t response, std::uint64_t iterations,
               const std::vector<std::string>& extra = {}, const std::vector<int>& keep = {}) {
  return test::drive_bytes(mech, endpoint, dir, request, response, iterations, extra, keep);
}

class EveryMechanism : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryMechanism, RoundTripsAndShutsDownOnStdinEof) {
  const std::string mech = GetParam();
  TempDir dir;
  Pipes pipes;
  const std::string sep = server_endpoint(mech, dir, pipes);
  Server server({"serve", "--mechanism", mech, "--endpoint", sep, "--seed", "77"},
                mech == "pipe" ? pipes.server_fds() : std::vector<int>{});
  ASSERT_TRUE(server.ready());
  const auto& ready = server.ready_json();
  EXPECT_EQ(ready["mechanism"], mech);
  EXPECT_EQ(ready["language"], "cpp");
  EXPECT_EQ(ready["pid"].get<long>(), static_cast<long>(server.pid()));
  EXPECT_TRUE(ready["runtime"].get<std::string>().find(' ') != std::string::npos);
  EXPECT_EQ(ready["contract"], 6);
  const bool local = mech != "tcp" && mech != "udp";
  if (local) {
    EXPECT_EQ(server.endpoint(), sep);
  } else {
    EXPECT_EQ(server.endpoint().rfind("127.0.0.1:", 0), 0u);
    EXPECT_NE(server.endpoint(), "127.0.0.1:0");
  }
  if (mech == "uds" || mech == "uds-dgram") {
    EXPECT_TRUE(test::exists(sep));
  }
  if (mech == "fifo") {
    EXPECT_TRUE(test::exists(dir.file("req")) && test::exists(dir.file("resp")));
  }

  const std::string cep = mech == "pipe" ? pipes.client_endpoint() : server.endpoint();
  const auto keep = mech == "pipe" ? pipes.client_fds() : std::vector<int>{};
  // Asymmetric sizes, larger than one datagram's worth of header for udp.
  const std::uint32_t request = mech == "udp" ? 65483 : 300000;
  DriveRun run = drive(mech, cep, dir, request, 1000, 40,
                       {"--warmup", "3", "--seed", "77", "--warmup-samples-file",
                        dir.file("warmup.bin")},
                       keep);
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.child.err, "");
  EXPECT_EQ(run.result["schema"], "ipclab.peer-result/1");
  EXPECT_EQ(run.result["status"], "ok");
  EXPECT_TRUE(run.result["error_kind"].is_null());
  EXPECT_TRUE(run.result["error"].is_null());
  EXPECT_EQ(run.result["language"], "cpp");
  EXPECT_EQ(run.result["mechanism"], mech);
  EXPECT_EQ(run.result["pattern"], "rr");
  EXPECT_EQ(run.result["request_size"], request);
  EXPECT_EQ(run.result["response_size"], 1000);
  EXPECT_EQ(run.result["warmup"], 3);
  EXPECT_EQ(run.result["iterations"], 40);
  EXPECT_EQ(run.result["samples"], 40);
  EXPECT_EQ(run.result["clock"], "CLOCK_MONOTONIC");
  EXPECT_EQ(run.result["contract"], 6);
  EXPECT_EQ(run.result["warmup_samples"], 3);
  ASSERT_EQ(run.samples.size(), 40u);
  for (auto s : run.samples) EXPECT_GT(s, 0);
  const auto warm = test::read_samples(dir.file("warmup.bin"));
  ASSERT_EQ(warm.size(), 3u);
  for (auto s : warm) EXPECT_GT(s, 0);
  EXPECT_FALSE(test::exists(dir.file("result.json.tmp-" + std::to_string(run.result["pid"].get<long>()))));

  if (mech != "pipe") {
    // A second client on the same server, with empty payloads both ways.
    run = drive(mech, cep, dir, 0, 0, 5, {"--seed", "77"});
    EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
    EXPECT_EQ(run.samples.size(), 5u);
    EXPECT_EQ(run.result["warmup_samples"], 0);
  }
  pipes.close_all();
  server.close_stdin();
  const ChildResult end = server.wait();
  EXPECT_EQ(end.exit_code, 0) << end.err;
  EXPECT_EQ(end.err, "");
  if (mech == "uds" || mech == "uds-dgram") {
    EXPECT_FALSE(test::exists(sep));
  }
  if (mech == "fifo") {
    EXPECT_FALSE(test::exists(dir.file("req")));
    EXPECT_FALSE(test::exists(dir.file("resp")));
  }
}

TEST_P(EveryMechanism, FaultInjectionIsAPayloadMismatch) {
  const std::string mech = GetParam();
  TempDir dir;
  Pipes pipes;
  Server server({"serve", "--mechanism", mech, "--endpoint", server_endpoint(mech, dir, pipes),
                 "--fault", "flip-response-byte"},
                mech == "pipe" ? pipes.server_fds() : std::vector<int>{});
  ASSERT_TRUE(server.ready());
  const std::string cep = mech == "pipe" ? pipes.client_endpoint() : server.endpoint();
  const DriveRun run = drive(mech, cep, dir, 16, 16, 10,
                             {"--warmup", "2", "--warmup-samples-file", dir.file("warmup.bin")},
                             mech == "pipe" ? pipes.client_fds() : std::vector<int>{});
  EXPECT_EQ(run.child.exit_code, 3) << run.child.err;
  EXPECT_EQ(run.child.err.rfind("ipclab-peer: payload-mismatch: ", 0), 0u) << run.child.err;
  EXPECT_NE(run.child.err.find("offset 15"), std::string::npos) << run.child.err;
  EXPECT_EQ(run.result["status"], "error");
  EXPECT_EQ(run.result["error_kind"], "payload-mismatch");
  // The first round trip (a warm-up one) fails validation: it is no sample of either file.
  EXPECT_EQ(run.result["samples"], 0);
  EXPECT_EQ(run.result["warmup_samples"], 0);
  EXPECT_EQ(test::read_samples(dir.file("warmup.bin")).size(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Peer, EveryMechanism,
                         ::testing::Values("tcp", "udp", "uds", "uds-dgram", "pipe", "fifo"),
                         test::param_name);

TEST(Peer, ClientDetectsCorruptedRequestsThroughEndAck) {
  // Different seeds: the client's requests are all wrong for the server. The responses are
  // wrong too, so use an empty response to let the END_ACK count surface.
  TempDir dir;
  Server server({"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0", "--seed", "2"});
  ASSERT_TRUE(server.ready());
  const DriveRun run = drive("tcp", server.endpoint(), dir, 16, 0, 7, {"--seed", "1"});
  EXPECT_EQ(run.child.exit_code, 3) << run.child.err;
  EXPECT_NE(run.child.err.find("server received 7 corrupted request payloads"), std::string::npos)
      << run.child.err;
  EXPECT_EQ(run.result["samples"], 7);
}

TEST(Peer, ClientDetectsWrongResponsePayloads) {
  TempDir dir;
  Server server({"serve", "--mechanism", "uds", "--endpoint", dir.file("s"), "--seed", "2"});
  ASSERT_TRUE(server.ready());
  const DriveRun run = drive("uds", server.endpoint(), dir, 0, 16, 7);
  EXPECT_EQ(run.child.exit_code, 3) << run.child.err;
  EXPECT_NE(run.child.err.find("offset 0 (sequence 0)"), std::string::npos) << run.child.err;
  EXPECT_EQ(run.samples.size(), 0u);  // measured, then found wrong: not a sample
  EXPECT_EQ(run.result["samples"], 0);
}

TEST(Peer, OnlyValidatedRoundTripsAreSamples) {
  // Three good warm-up and two good measured round trips, then a wrong one: 2 samples.
  TempDir dir;
  Server server({"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0", "--seed", "5"});
  ASSERT_TRUE(server.ready());
  DriveRun run = drive("tcp", server.endpoint(), dir, 16, 16, 4,
                       {"--seed", "5", "--warmup", "3", "--warmup-samples-file",
                        dir.file("warmup.bin")});
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(test::read_samples(dir.file("warmup.bin")).size(), 3u);
  // A zero warm-up with the flag writes an empty file.
  run = drive("tcp", server.endpoint(), dir, 16, 16, 1,
              {"--seed", "5", "--warmup-samples-file", dir.file("warmup.bin")});
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_TRUE(test::exists(dir.file("warmup.bin")));
  EXPECT_EQ(test::read_samples(dir.file("warmup.bin")).size(), 0u);
  EXPECT_EQ(run.result["warmup_samples"], 0);
}

}  // namespace
}  // namespace ipclab
