// redis-tcp and redis-uds (PROTOCOL.md 4.10): the C++ client against the C++ responder through
// one Redis server per mechanism for the suite (the orchestrator's own launcher,
// ipclab.execute.redis_server): READY's endpoint and server version, rr at 0 B, 16 B, 1 MiB and
// the largest payload, streams past the credit window, the faults, what a responder rejects (an
// empty answer; it goes on), a lost server, the patterns it does not carry, and
// `capabilities`' library. Skipped, with the reason, where redis-server is missing; a build
// without hiredis must not list the mechanisms.
#include <unistd.h>

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frame.hpp"
#include "message_library.hpp"
#include "support.hpp"
#ifdef IPCLAB_EXPECT_HIREDIS
#include <hiredis/hiredis.h>
#endif

namespace ipclab {
namespace {

TEST(RedisCapabilities, ListedWithTheLibraryExactlyWhereBuiltIn) {
#ifdef IPCLAB_EXPECT_HIREDIS
  test::expect_listed_with_library({"redis-tcp", "redis-uds"}, true,
                                   "hiredis " + std::to_string(HIREDIS_MAJOR) + "." +
                                       std::to_string(HIREDIS_MINOR) + "." +
                                       std::to_string(HIREDIS_PATCH));
#else
  test::expect_listed_with_library({"redis-tcp", "redis-uds"}, false, "");
#endif
}

#ifdef IPCLAB_EXPECT_HIREDIS

using test::ChildResult;
using test::DriveRun;
using test::Launched;
using test::Server;
using test::TempDir;

const char* const kRedisServer = "/usr/bin/redis-server";

// A Redis server of the orchestrator's launcher (message_library.hpp): its endpoint is
// redis://HOST:PORT/ipclab:test or unix://PATH#ipclab:test.
Launched launch(const std::string& transport, const std::string& where) {
  return test::launch_server("ipclab.execute.redis_server", {transport, where});
}

// The endpoint of the suite's server for `mech` with the key name `name`.
std::string with_name(const std::string& endpoint, const std::string& name) {
  const auto cut = endpoint.rfind(endpoint.rfind("unix://", 0) == 0 ? '#' : '/');
  return endpoint.substr(0, cut + 1) + name;
}

class Redis : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    if (::access(kRedisServer, X_OK) != 0) return;
    dir_ = new TempDir;
    for (const char* t : {"tcp", "uds"}) servers_[t] = launch(t, dir_->file(t));
  }
  static void TearDownTestSuite() {
    for (auto& [t, l] : servers_) stop(l);
    delete dir_;
  }
  void SetUp() override {
    if (::access(kRedisServer, X_OK) != 0)
      GTEST_SKIP() << kRedisServer << " is missing (Debian's redis-server, scripts/setup-system)";
    ASSERT_FALSE(server_endpoint().empty()) << "the Redis server did not start";
  }
  static std::string transport() { return GetParam() == "redis-tcp" ? "tcp" : "uds"; }
  static std::string server_endpoint() { return servers_[transport()].endpoint; }
  // A name of this test's own, so no test meets another's lists.
  static std::string endpoint(const std::string& name) {
    return with_name(server_endpoint(), name);
  }
  static Server responder(const std::string& name, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"serve", "--mechanism", GetParam(), "--endpoint",
                                     endpoint(name)};
    args.insert(args.end(), extra.begin(), extra.end());
    return Server(args);
  }
  static inline std::map<std::string, Launched> servers_;
  static inline TempDir* dir_ = nullptr;
  TempDir dir;
};

TEST_P(Redis, ReadyNamesTheEndpointAndTheServersVersion) {
  Server server = responder("t:ready");
  test::expect_ready_names_the_server(server, GetParam(), endpoint("t:ready"), "Redis ");
}

TEST_P(Redis, RoundTripsAndTheLargestPayload) {
  Server server = responder("t:rr");
  test::expect_round_trips_up_to_the_largest_payload(GetParam(), server, dir);
}

// 1 B and 1000 B: windows of 1000 messages; 4 MiB: a window of 16, a credit per 8.
TEST_P(Redis, StreamsPastTheCreditWindowCountEveryMessage) {
  Server server = responder("t:stream");
  test::expect_streams_count_every_message(GetParam(), server, dir);
}

TEST_P(Redis, FaultsFailTheClient) {
  test::expect_faults_fail_the_client(GetParam(), [](const std::string& fault, const TempDir&) {
    return responder("t:fault:" + fault, {"--fault", fault});
  });
}

TEST_P(Redis, ShortLoadAndBadEndpointsAreRefused) {
  test::expect_short_and_load_refused(GetParam(), endpoint("t:short"), endpoint("t:load"), dir);
  for (const char* bad : {"127.0.0.1:6379", "redis://127.0.0.1:6379", "unix://rel/s#n",
                          "redis://127.0.0.1:6379/a b", "unix:///tmp/s#"}) {
    const ChildResult r = test::run_peer({"serve", "--mechanism", GetParam(), "--endpoint", bad});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
  }
}

// This test's own connection to the suite's server.
class RedisRaw {
 public:
  explicit RedisRaw(const std::string& endpoint) {
    const bool uds = endpoint.rfind("unix://", 0) == 0;
    const auto cut = endpoint.rfind(uds ? '#' : '/');
    name_ = endpoint.substr(cut + 1);
    const std::string where = endpoint.substr(uds ? 7 : 8, cut - (uds ? 7 : 8));
    if (uds) {
      c_ = redisConnectUnix(where.c_str());
    } else {
      const auto colon = where.rfind(':');
      c_ = redisConnect(where.substr(0, colon).c_str(), std::stoi(where.substr(colon + 1)));
    }
  }
  ~RedisRaw() { redisFree(c_); }
  bool ok() const { return c_ != nullptr && c_->err == 0; }
  // The link of message_library.hpp's rejections: bytes pushed onto NAME:requests as a frame,
  // and its answer (no answer within 5 s fails the test); n bytes as a stream message.
  std::vector<std::uint8_t> ask(const std::vector<std::uint8_t>& bytes) {
    push(bytes);
    std::optional<std::vector<std::uint8_t>> got = answer();
    EXPECT_TRUE(got.has_value()) << "no answer on " << name_ << ":replies within 5 s";
    return got.value_or(std::vector<std::uint8_t>());
  }
  void push(std::size_t n) { push(std::vector<std::uint8_t>(n, 0x5a)); }
  void push(const std::vector<std::uint8_t>& bytes) {
    freeReplyObject(redisCommand(c_, "RPUSH %s:requests %b", name_.c_str(), bytes.data(),
                                 bytes.size()));
  }
  void push_reply(const std::vector<std::uint8_t>& bytes) {
    freeReplyObject(redisCommand(c_, "RPUSH %s:replies %b", name_.c_str(), bytes.data(),
                                 bytes.size()));
  }
  // The next answer on NAME:replies (nullopt: none within 5 s).
  std::optional<std::vector<std::uint8_t>> answer() {
    auto* r = static_cast<redisReply*>(redisCommand(c_, "BLPOP %s:replies 5", name_.c_str()));
    std::optional<std::vector<std::uint8_t>> out;
    if (r != nullptr && r->type == REDIS_REPLY_ARRAY && r->elements == 2)
      out.emplace(r->element[1]->str, r->element[1]->str + r->element[1]->len);
    freeReplyObject(r);
    return out;
  }
  long long exists() {
    auto* r = static_cast<redisReply*>(redisCommand(
        c_, "EXISTS %s:requests %s:replies %s:credits", name_.c_str(), name_.c_str(),
        name_.c_str()));
    const long long n = r != nullptr ? r->integer : -1;
    freeReplyObject(r);
    return n;
  }

 private:
  redisContext* c_ = nullptr;
  std::string name_;
};

TEST_P(Redis, RejectedFramesAreAnsweredEmptyAndTheResponderGoesOn) {
  RedisRaw raw(endpoint("t:reject"));
  ASSERT_TRUE(raw.ok());
  raw.push(std::vector<std::uint8_t>(40, 7));  // a leftover of an earlier run: deleted at start
  Server server = responder("t:reject");
  ASSERT_TRUE(server.ready());
  test::expect_rejected_frames_answered_empty(raw, false);
  // The responder goes on, and a finished exchange leaves no key on the server (the credits
  // are gone with the stream given up).
  EXPECT_EQ(test::drive_bytes(GetParam(), server.endpoint(), dir, 16, 16, 5).child.exit_code, 0);
  EXPECT_EQ(raw.exists(), 0);
  server.close_stdin();
  test::expect_rejections_said_in_order(server.wait());
}

TEST_P(Redis, AnEmptyAnswerIsAProtocolErrorAndNoAnswerATimeout) {
  RedisRaw raw(endpoint("t:empty"));
  ASSERT_TRUE(raw.ok());
  raw.push_reply({});  // what a responder answers a rejected frame with
  const DriveRun empty = test::drive_bytes(GetParam(), endpoint("t:empty"), dir, 16, 16, 1);
  EXPECT_EQ(empty.child.exit_code, 4) << empty.child.err;
  EXPECT_EQ(empty.result["error_kind"], "protocol");
  // No responder at all: BLPOP's nil after --io-timeout.
  const DriveRun none =
      test::drive_bytes(GetParam(), endpoint("t:none"), dir, 16, 16, 1, {"--io-timeout", "0.5"});
  EXPECT_EQ(none.child.exit_code, 6) << none.child.err;
  EXPECT_EQ(none.result["error_kind"], "timeout");
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, Redis, ::testing::Values("redis-tcp", "redis-uds"),
                         test::param_name);

TEST(RedisLost, AResponderWhoseServerDiesExitsWithAnIoError) {
  if (::access(kRedisServer, X_OK) != 0) GTEST_SKIP() << kRedisServer << " is missing";
  TempDir dir;
  Launched l = launch("uds", dir.file("r"));
  test::expect_a_lost_server_ends_the_responder("redis-uds", l, with_name(l.endpoint, "t"),
                                                "closed the connection");
}

#endif  // IPCLAB_EXPECT_HIREDIS

}  // namespace
}  // namespace ipclab
