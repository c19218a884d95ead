// load (PROTOCOL.md 11.5): the client against real load servers of every model of this build,
// the records, samples and result agreeing; the test faults; a rejected frame closing only its
// own connection; and the RPC frameworks' own servers (11.5.4).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "burst/server_models.hpp"
#include "frame.hpp"
#include "load_runs.hpp"
#include "payload.hpp"
#include "support.hpp"

namespace ipclab::load {
namespace {

using namespace load_test;

test::Server load_server(const std::string& model, const std::string& fault = "none",
                         const std::string& mechanism = "tcp",
                         const std::string& endpoint = "127.0.0.1:0") {
  return test::Server({"serve", "--pattern", "load", "--mechanism", mechanism, "--endpoint",
                       endpoint, "--server-model", model, "--fault", fault});
}

// A schedule driven against a fresh server of `model` with `fault`; the server is stopped after.
LoadRun load_against(const std::string& model, const std::string& fault,
                     std::vector<std::string> extra) {
  test::TempDir dir;
  test::Server server = load_server(model, fault);
  EXPECT_TRUE(server.ready());
  LoadRun run = drive_load("tcp", server.endpoint(), dir, std::move(extra));
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
  return run;
}

// The parameter: MECHANISM-MODEL (tcp-epoll, uds-thread-pool).
class LoadModels : public ::testing::TestWithParam<std::string> {
 protected:
  std::string mechanism() const { return GetParam().substr(0, GetParam().find('-')); }
  std::string model() const { return GetParam().substr(GetParam().find('-') + 1); }
};

// 2 clients, 2000 req/s, 50 ms of warm-up and 200 ms measured, 100 B out, 300 B back.
TEST_P(LoadModels, ServesTheScheduleAndTheFilesAgree) {
  test::TempDir dir;
  const bool uds = mechanism() == "uds";
  const std::string endpoint = uds ? dir.file("load.sock") : "127.0.0.1:0";
  test::Server server = load_server(model(), "none", mechanism(), endpoint);
  ASSERT_TRUE(server.ready());
  EXPECT_EQ(server.ready_json()["server_model"], model());
  if (uds) {
    EXPECT_EQ(server.endpoint(), endpoint);
  }
  const LoadRun run = drive_load(mechanism(), server.endpoint(), dir,
                                 {"--clients", "2", "--rate", "2000", "--duration-ms", "200",
                                  "--warmup-ms", "50", "--request-size", "100",
                                  "--response-size", "300"});
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  const auto& j = run.result;
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["pattern"], "load");
  EXPECT_EQ(j["contract"], 6);
  EXPECT_EQ(j["iterations"], 400);
  EXPECT_EQ(j["warmup"], 100);
  EXPECT_EQ(j["requests_ok"], 400);
  EXPECT_EQ(j["requests_failed"], 0);
  EXPECT_EQ(j["errors"], nlohmann::json::object());
  EXPECT_EQ(j["clients"], 2);
  EXPECT_EQ(j["arrival"], "fixed");
  EXPECT_EQ(j["samples"], 400);
  ASSERT_EQ(run.rows.size(), 500u);
  std::vector<std::int64_t> expected;
  std::int64_t last = 0;
  for (std::size_t k = 0; k < run.rows.size(); ++k) {
    const Row& r = run.rows[k];
    EXPECT_EQ(r.request, k);
    EXPECT_EQ(r.connection, k % 2);
    EXPECT_EQ(r.intended, static_cast<std::int64_t>(k) * 500'000);
    EXPECT_EQ(r.measured, k >= 100);
    EXPECT_EQ(r.error, "");
    EXPECT_GE(r.sent, r.intended - 1'000);  // never early (the clock is read just before)
    EXPECT_GT(r.received, r.sent);
    if (r.measured) expected.push_back(r.received - r.intended);
    if (r.measured) last = std::max(last, r.received);
  }
  EXPECT_EQ(run.samples, expected);
  EXPECT_NEAR(j["achieved_per_s"].get<double>(), 400 * 1e9 / (last - 50'000'000), 1.0);
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
  EXPECT_FALSE(uds && test::exists(endpoint));  // section 4: the server removes its socket
}

// tcp's load models, and uds's (the same but those that need SO_REUSEPORT).
INSTANTIATE_TEST_SUITE_P(EveryModel, LoadModels, ::testing::ValuesIn([] {
                           std::vector<std::string> names;
                           for (const auto name : burst::server_model_names(true))
                             names.push_back("tcp-" + std::string(name));
                           for (const auto name : burst::server_model_names(true, false))
                             names.push_back("uds-" + std::string(name));
                           return names;
                         }()),
                         test::param_name);

// uds has no SO_REUSEPORT, hence no epoll-reuseport (unsupported, exit 7), and no burst.
TEST(LoadUds, NoReuseportModelAndNoBurst) {
  test::TempDir dir;
  test::Server reuseport = load_server("epoll-reuseport", "none", "uds", dir.file("a.sock"));
  EXPECT_FALSE(reuseport.ready());
  EXPECT_EQ(reuseport.wait().exit_code, 7);
  test::Server burst({"serve", "--mechanism", "uds", "--endpoint", dir.file("b.sock"),
                      "--server-model", "thread", "--connections", "1", "--phases-file",
                      dir.file("p.csv")});
  EXPECT_FALSE(burst.ready());
  EXPECT_EQ(burst.wait().exit_code, 7);
  EXPECT_FALSE(test::exists(dir.file("a.sock")) || test::exists(dir.file("b.sock")));
}

// load over the RPC frameworks (11.5.4): each framework's own server in a configuration serves
// the schedule over the client's sessions; the files are as over tcp. {mechanism, model}.
class RpcLoad : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(RpcLoad, ServesTheScheduleOverTheFrameworksOwnServer) {
  const auto& [mechanism, model] = GetParam();
  test::TempDir dir;
  test::Server server = load_server(model, "none", mechanism);
  ASSERT_TRUE(server.ready());
  EXPECT_EQ(server.ready_json()["server_model"], model);
  // 3 sessions, 500 req/s: 20 ms of warm-up (10 requests) and 200 ms measured (100).
  const LoadRun run = drive_load(mechanism, server.endpoint(), dir,
                                 {"--clients", "3", "--rate", "500", "--duration-ms", "200",
                                  "--warmup-ms", "20", "--response-size", "100"});
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.result["requests_ok"], 100);
  ASSERT_EQ(run.rows.size(), 110u);
  for (const Row& r : run.rows) {
    EXPECT_EQ(r.error, "") << r.request;
    EXPECT_EQ(r.connection, r.request % 3);
    EXPECT_LE(r.intended, r.sent);
    EXPECT_LT(r.sent, r.received);
  }
  EXPECT_EQ(run.samples.size(), 100u);
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Peer, RpcLoad,
    ::testing::Values(std::pair{"grpc", "sync"}, std::pair{"grpc", "callback"},
                      std::pair{"rest", "thread-pool"}, std::pair{"thrift-binary", "threaded"},
                      std::pair{"ice", "thread-pool-4"},
                      std::pair{"corba", "thread-per-connection"}, std::pair{"corba", "thread-pool"}),
    [](const auto& info) {
      std::string name = info.param.first + "_" + info.param.second;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

TEST(RpcLoad, AFlippedResponseIsAPayloadMismatchAfterEveryFile) {
  test::TempDir dir;
  test::Server server = load_server("sync", "flip-response-byte", "grpc");
  ASSERT_TRUE(server.ready());
  const LoadRun run = drive_load("grpc", server.endpoint(), dir,
                                 {"--clients", "2", "--rate", "1000", "--duration-ms", "20"});
  EXPECT_EQ(run.child.exit_code, 3) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "payload-mismatch");
  ASSERT_EQ(run.rows.size(), 20u);
  for (const Row& r : run.rows) EXPECT_EQ(r.error, "payload-mismatch");
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

// What an RPC load server cannot be is unsupported (exit 7), before READY: a configuration the
// framework's server lacks, --workers, --backlog (even its default 512), a load fault, burst.
TEST(RpcLoad, WhatTheFrameworksServerIsNotIsUnsupported) {
  for (const std::vector<std::string>& no : {
           std::vector<std::string>{"grpc", "--pattern", "load", "--server-model", "epoll"},
           {"grpc", "--pattern", "load", "--server-model", "sync", "--workers", "4"},
           {"grpc", "--pattern", "load", "--server-model", "sync", "--backlog", "512"},
           {"corba", "--pattern", "load", "--server-model", "thread-pool", "--backlog", "512"},
           {"rest", "--pattern", "load", "--server-model", "thread-pool", "--fault", "stall"},
           {"rest", "--server-model", "thread-pool", "--connections", "1", "--phases-file", "p"},
           {"corba", "--pattern", "load", "--server-model", "thread"}}) {
    std::vector<std::string> a = {"serve", "--mechanism", no[0], "--endpoint", "127.0.0.1:0"};
    a.insert(a.end(), no.begin() + 1, no.end());
    EXPECT_EQ(test::run_peer(a).exit_code, 7) << no[0] << " " << no.back();
  }
}

TEST(LoadFaults, AFlippedResponseIsAPayloadMismatchAfterEveryFile) {
  test::TempDir dir;
  test::Server server = load_server("thread", "flip-response-byte");
  ASSERT_TRUE(server.ready());
  const LoadRun run = drive_load("tcp", server.endpoint(), dir,
                                 {"--clients", "2", "--rate", "1000", "--duration-ms", "20"});
  EXPECT_EQ(run.child.exit_code, 3) << run.child.err;
  EXPECT_EQ(run.result["status"], "error");
  EXPECT_EQ(run.result["error_kind"], "payload-mismatch");
  ASSERT_EQ(run.rows.size(), 20u);
  for (const Row& r : run.rows) EXPECT_EQ(r.error, "payload-mismatch");
  EXPECT_TRUE(run.samples.empty());
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait().exit_code, 0);
}

// A stall holds the responses of the first 100 ms of every second since READY: the corrected
// response time shows it, the service time of the requests sent after a stall does not. The
// schedule spans the stall one second after READY whole (the first one is partly over before
// the client connects).
TEST(LoadFaults, AStallIsChargedToTheResponseTime) {
  const LoadRun run = load_against("epoll", "stall",
                                   {"--clients", "2", "--rate", "200", "--duration-ms", "1200"});
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  std::int64_t worst = 0;
  std::vector<std::int64_t> service;
  for (const Row& r : run.rows) {
    worst = std::max(worst, r.received - r.intended);
    service.push_back(r.received - r.sent);
  }
  std::sort(service.begin(), service.end());
  EXPECT_GE(worst, 50'000'000);
  EXPECT_LT(service[service.size() / 2], 50'000'000);
}

TEST(LoadFaults, CapacityCapsTheAchievedRate) {
  const LoadRun run = load_against("thread", "capacity:200",
                                   {"--clients", "2", "--rate", "400", "--duration-ms", "250"});
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.result["requests_ok"], 100);
  const double achieved = run.result["achieved_per_s"].get<double>();
  EXPECT_LT(achieved, 260.0);
  EXPECT_GT(achieved, 120.0);
}

// Reads n bytes (or fewer at the end of stream).
std::vector<std::uint8_t> read_n(int fd, std::size_t n) {
  std::vector<std::uint8_t> got(n);
  std::size_t have = 0;
  while (have < n) {
    const ssize_t r = ::recv(fd, got.data() + have, n - have, 0);
    if (r <= 0) break;
    have += static_cast<std::size_t>(r);
  }
  got.resize(have);
  return got;
}

class LoadRejects : public ::testing::TestWithParam<std::string> {};

TEST_P(LoadRejects, AMalformedFrameClosesOnlyItsConnection) {
  test::Server server = load_server(GetParam());
  ASSERT_TRUE(server.ready());
  const int good = test::connect_loopback(SOCK_STREAM, server.endpoint());
  const int bad = test::connect_loopback(SOCK_STREAM, server.endpoint());
  const int mark = test::connect_loopback(SOCK_STREAM, server.endpoint());
  std::uint8_t frame[kHeaderSize + 4];
  encode_header(frame, FrameKind::request, 7, 4, 2);
  fill_base(1, PayloadStream::request, frame + kHeaderSize, 4);
  stamp_in_place(frame + kHeaderSize, 4, 7);
  ASSERT_EQ(::send(good, frame, sizeof frame, 0), static_cast<ssize_t>(sizeof frame));
  EXPECT_EQ(read_n(good, kHeaderSize + 2).size(), kHeaderSize + 2);
  std::uint8_t broken[kHeaderSize];
  encode_header(broken, FrameKind::request, 0, 4, 2);
  broken[0] = 'X';
  ASSERT_EQ(::send(bad, broken, kHeaderSize, 0), static_cast<ssize_t>(kHeaderSize));
  EXPECT_TRUE(read_n(bad, 1).empty());  // closed, nothing sent
  encode_header(broken, FrameKind::mark, 0, 16, 0);  // a load server takes no stream
  ASSERT_EQ(::send(mark, broken, kHeaderSize, 0), static_cast<ssize_t>(kHeaderSize));
  EXPECT_TRUE(read_n(mark, 1).empty());
  // The good connection goes on: another round trip, then END -> END_ACK with 0 corrupted.
  encode_header(frame, FrameKind::request, 8, 4, 2);
  fill_base(1, PayloadStream::request, frame + kHeaderSize, 4);
  stamp_in_place(frame + kHeaderSize, 4, 8);
  ASSERT_EQ(::send(good, frame, sizeof frame, 0), static_cast<ssize_t>(sizeof frame));
  EXPECT_EQ(read_n(good, kHeaderSize + 2).size(), kHeaderSize + 2);
  encode_header(frame, FrameKind::end, 9, 0, 0);
  ASSERT_EQ(::send(good, frame, kHeaderSize, 0), static_cast<ssize_t>(kHeaderSize));
  const auto ack = read_n(good, kEndAckSize + 1);
  ASSERT_EQ(ack.size(), kEndAckSize);  // then the server closes
  EXPECT_EQ(decode_header(ack.data()).kind, static_cast<std::uint8_t>(FrameKind::end_ack));
  EXPECT_EQ(load_le64(ack.data() + kHeaderSize), 0u);
  for (const int fd : {good, bad, mark}) ::close(fd);
  server.close_stdin();
  const test::ChildResult end = server.wait();
  EXPECT_EQ(end.exit_code, 0);
  EXPECT_NE(end.err.find("rejected frame: bad magic"), std::string::npos) << end.err;
  EXPECT_NE(end.err.find("rejected frame: unexpected kind"), std::string::npos) << end.err;
}

INSTANTIATE_TEST_SUITE_P(BlockingAndLoop, LoadRejects, ::testing::Values("thread", "epoll"),
                         test::param_name);

}  // namespace
}  // namespace ipclab::load
