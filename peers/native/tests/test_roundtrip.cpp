// ipclab-peer run as the orchestrator runs it: a `serve` process (stdin held open, READY read
// from stdout) and a `drive` process, over every mechanism; plus faults, errors and shutdown.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

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

TEST(Peer, CapabilitiesDescribesTheTable) {
  const test::ChildResult bad = test::run_peer({"capabilities", "--mechanism", "tcp"});
  EXPECT_EQ(bad.exit_code, 2);
  int code = -1;
  const std::string text = test::peer_stdout({"capabilities"}, &code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["contract"], 6);
  EXPECT_EQ(j["language"], "cpp");
  const auto& m = j["mechanisms"];
  const auto all = nlohmann::json::array({"rr", "stream", "short"});
  const auto stream = nlohmann::json::array({"rr", "stream"});
  const auto rr = nlohmann::json::array({"rr"});
  const auto rr_short = nlohmann::json::array({"rr", "short"});
  std::vector<std::string> names = {"tcp", "udp", "uds", "uds-dgram", "pipe", "fifo", "sysv-mq",
                                    "posix-mq", "sysv-shm", "file", "file-poll", "shm",
                                    "shm-spin", "shm-futex", "none", "direct", "rest", "grpc",
                                    "thrift-binary", "thrift-compact", "ice", "corba"};
#ifdef IPCLAB_EXPECT_SOAP
  names.push_back("soap");  // only where gSOAP is built in
#else
  EXPECT_FALSE(m.contains("soap"));
#endif
#ifdef IPCLAB_EXPECT_ACTIVEMQ
  names.push_back("activemq");  // only where Qpid Proton C++ is built in (4.7: rr, stream)
#else
  EXPECT_FALSE(m.contains("activemq"));
#endif
#ifdef IPCLAB_EXPECT_ZMQ
  names.insert(names.end(), {"zmq-tcp", "zmq-ipc"});  // only where libzmq is built in (4.8)
#endif
#ifdef IPCLAB_EXPECT_NNG
  names.insert(names.end(), {"nng-tcp", "nng-ipc"});  // only where libnng is built in (4.9)
#endif
#ifdef IPCLAB_EXPECT_HIREDIS
  names.insert(names.end(), {"redis-tcp", "redis-uds"});  // only where hiredis is built in (4.10)
#endif
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(m.contains(name));
    const std::string n = name;
    // Section 11's table.
    const bool shorts = n == "tcp" || n == "uds" || n == "sysv-mq" || n == "posix-mq";
    const bool streams = shorts || n == "udp" || n == "uds-dgram" || n == "pipe" ||
                         n == "fifo" || n == "sysv-shm" || n.rfind("file", 0) == 0 ||
                         n.rfind("shm", 0) == 0 || n == "grpc" ||  // grpc, rest: 11.3
                         n == "activemq" || n.rfind("zmq-", 0) == 0 ||
                         n.rfind("nng-", 0) == 0 || n.rfind("redis-", 0) == 0;
    // tcp also carries burst (11.4) and load (11.5) and names the server models of each; uds
    // carries load only, without epoll-reuseport (AF_UNIX has no SO_REUSEPORT); the message
    // queues carry load over one shared request queue (11.5.5); every RPC framework but soap
    // carries load over its own server configurations (11.5.4).
    const bool rpc_load = n == "rest" || n == "grpc" || n.rfind("thrift", 0) == 0 ||
                          n == "ice" || n == "corba";
    const bool queue_load = n == "sysv-mq" || n == "posix-mq";
    auto patterns = shorts ? all : streams ? stream : n == "rest" ? rr_short : rr;
    if (n == "tcp") patterns.insert(patterns.end(), {"burst", "load"});
    if (n == "uds" || rpc_load || queue_load) patterns.push_back("load");
    EXPECT_EQ(m[name]["patterns"], patterns);
    EXPECT_EQ(m[name].contains("server_models"), n == "tcp");
    EXPECT_EQ(m[name].contains("load_models"),
              n == "tcp" || n == "uds" || rpc_load || queue_load);
    const bool drive_only = std::string(name) == "none" || std::string(name) == "direct";
    EXPECT_EQ(m[name]["roles"], drive_only ? nlohmann::json::array({"drive"})
                                           : nlohmann::json::array({"serve", "drive"}));
  }
  EXPECT_EQ(m.size(), names.size());
  EXPECT_EQ(m["tcp"]["max_payload"], 134217728);
  EXPECT_EQ(m["udp"]["max_payload"], 65483);
  auto uds_models = m["tcp"]["load_models"];
  uds_models.erase(std::find(uds_models.begin(), uds_models.end(), "epoll-reuseport"));
  EXPECT_EQ(m["uds"]["load_models"], uds_models);
  EXPECT_EQ(m["grpc"]["load_models"], nlohmann::json::array({"sync", "callback"}));
  EXPECT_EQ(m["ice"]["load_models"], nlohmann::json::array({"thread-pool-1", "thread-pool-4"}));
  EXPECT_EQ(m["corba"]["load_models"],
            nlohmann::json::array({"thread-per-connection", "thread-pool"}));
  for (const char* queue : {"sysv-mq", "posix-mq"})
    EXPECT_EQ(m[queue]["load_models"], nlohmann::json::array({"iterative", "thread-pool"}));
  EXPECT_FALSE(m.contains("jni"));
}

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
  Pipes pipes;
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
  const DriveRun run = drive("tcp", ep, dir, 16, 16, 5);
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
  const DriveRun run = drive("udp", ep, dir, 16, 16, 5);
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  server.close_stdin();
  const ChildResult end = server.wait();
  EXPECT_EQ(end.exit_code, 0);
  EXPECT_EQ(end.err,
            "ipclab-peer: rejected frame: bad version\n"
            "ipclab-peer: rejected frame: length mismatch\n"
            "ipclab-peer: rejected frame: truncated header\n");
}

TEST(Peer, UsageErrorsExitTwoAndWriteNothing) {
  TempDir dir;
  const ChildResult r = test::run_peer({"drive", "--mechanism", "tcp", "--endpoint", "127.0.0.1:1",
                                        "--request-size", "16", "--response-size", "16",
                                        "--iterations", "-3", "--samples-file",
                                        dir.file("s"), "--result-file", dir.file("r")});
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
  DriveRun run = drive("jni", "inproc", dir, 16, 16, 1);
  EXPECT_EQ(run.child.exit_code, 7) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "unsupported");
  EXPECT_EQ(run.result["mechanism"], "jni");
  run = drive("udp", "127.0.0.1:9", dir, 65484, 16, 1);
  EXPECT_EQ(run.child.exit_code, 7) << run.child.err;
  run = drive("udp", "127.0.0.1:9", dir, 16, 16, 1, {"--pattern", "short"});
  EXPECT_EQ(run.child.exit_code, 7) << run.child.err;
  run = drive("tcp", "127.0.0.1:9", dir, 16, 16, 1, {"--pattern", "flood"});
  EXPECT_EQ(run.child.exit_code, 7) << run.child.err;
  EXPECT_EQ(test::run_peer({"serve", "--mechanism", "jni", "--endpoint", "x"}).exit_code, 7);
}

TEST(Peer, ConnectionRefusedIsAnIoError) {
  TempDir dir;
  const test::Loopback port = test::bind_loopback(SOCK_STREAM);  // bound, not listening
  const DriveRun run = drive("tcp", port.endpoint, dir, 16, 16, 3);
  ::close(port.fd);
  EXPECT_EQ(run.child.exit_code, 5) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "io");
  EXPECT_EQ(run.result["samples"], 0);
  EXPECT_EQ(run.samples.size(), 0u);
}

TEST(Peer, SilentUdpServerIsATimeout) {
  TempDir dir;
  const test::Loopback silent = test::bind_loopback(SOCK_DGRAM);  // never answers
  const DriveRun run = drive("udp", silent.endpoint, dir, 16, 16, 3, {"--io-timeout", "0.2"});
  ::close(silent.fd);
  EXPECT_EQ(run.child.exit_code, 6) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "timeout");
}

TEST(Peer, SilentPipeServerIsATimeout) {
  TempDir dir;
  Pipes pipes;  // nobody serves the other ends; this process keeps them open
  const DriveRun run = drive("pipe", pipes.client_endpoint(), dir, 16, 16, 3,
                             {"--io-timeout", "0.3", "--warmup", "0"}, pipes.client_fds());
  EXPECT_EQ(run.child.exit_code, 6) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "timeout");
  EXPECT_NE(run.child.err.find("(sequence 0)"), std::string::npos) << run.child.err;
}

TEST(Peer, PipeTimeoutDoesNotFireOnASlowButSteadyRun) {
  // The timer re-arms toward each round trip's deadline: many round trips in total longer
  // than the timeout must not time out.
  TempDir dir;
  Pipes pipes;
  Server server({"serve", "--mechanism", "pipe", "--endpoint", pipes.server_endpoint()},
                pipes.server_fds());
  ASSERT_TRUE(server.ready());
  const DriveRun run = drive("pipe", pipes.client_endpoint(), dir, 1 << 20, 1 << 20, 200,
                             {"--io-timeout", "0.2"}, pipes.client_fds());
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  pipes.close_all();
  EXPECT_EQ(server.wait().exit_code, 0);
}

}  // namespace
}  // namespace ipclab
