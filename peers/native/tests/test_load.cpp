// load (PROTOCOL.md 11.5): the schedule against the vectors, the test faults' arithmetic, the
// flags, and real runs of the client against every load server model of this build.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "burst/server_models.hpp"
#include "cli.hpp"
#include "error.hpp"
#include "frame.hpp"
#include "load/faults.hpp"
#include "load/schedule.hpp"
#include "payload.hpp"
#include "support.hpp"

namespace ipclab::load {
namespace {

TEST(LoadSchedule, MatchesTheVectorsWithinOneNanosecond) {
  const auto& cases = test::vectors()["load_schedules"];
  ASSERT_FALSE(cases.empty());
  for (const auto& v : cases) {
    const auto got = first_offsets(v["seed"].get<std::uint64_t>(), v["rate"].get<std::uint64_t>(),
                                   v["arrival"] == "poisson", v["count"].get<std::size_t>());
    const auto want = v["offsets_ns"].get<std::vector<std::int64_t>>();
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t k = 0; k < got.size(); ++k)
      EXPECT_LE(std::abs(got[k] - want[k]), 1) << v.dump() << " k=" << k;
  }
}

TEST(LoadSchedule, HoldsEveryOffsetBelowItsEnd) {
  const auto fixed = schedule(1, 1000, false, 200'000'000);
  ASSERT_EQ(fixed.size(), 200u);
  EXPECT_EQ(fixed.back(), 199'000'000);
  EXPECT_EQ(schedule(1, 3, false, 1'000'000'001).size(), 4u);  // 0, ⅓ s, ⅔ s, 1 s
  const auto poisson = schedule(42, 20000, true, 100'000'000);
  EXPECT_TRUE(std::is_sorted(poisson.begin(), poisson.end()));
  EXPECT_LT(poisson.back(), 100'000'000);
  EXPECT_NEAR(static_cast<double>(poisson.size()), 2000.0, 200.0);
  // ⌊k × 10⁹ / R⌋ without overflow far into a long schedule.
  Arrivals late(1, 3, false);
  for (int i = 0; i < 4; ++i) late.next();
  EXPECT_EQ(late.next(), 1'333'333'333);
}

ServeOptions fault_options(const std::string& fault) {
  return std::get<ServeOptions>(parse_command_line(
      {"serve", "--pattern", "load", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
       "--server-model", "epoll", "--fault", fault}));
}

TEST(LoadGate, StallHoldsTheFirstTenthOfEverySecondSinceReady) {
  Gate* gate = Gate::create(fault_options("stall"));
  ASSERT_NE(gate, nullptr);
  gate->open(5'000);
  EXPECT_EQ(gate->stall_end(5'000), 100'005'000);
  EXPECT_EQ(gate->stall_end(60'005'000), 100'005'000);
  EXPECT_EQ(gate->stall_end(100'005'000), 100'005'000);  // the stall is over: no wait
  EXPECT_EQ(gate->stall_end(700'000'000), 700'000'000);
  EXPECT_EQ(gate->stall_end(3'050'005'000), 3'100'005'000);
  EXPECT_EQ(Gate::create(fault_options("none")), nullptr);
}

TEST(LoadGate, CapacityLetsTheBucketGoAtOnceThenOneTokenPerInterval) {
  Gate* gate = Gate::create(fault_options("capacity:1000"));  // bucket 10, one per ms
  ASSERT_NE(gate, nullptr);
  const std::int64_t t = 50'000'000'000;
  for (int i = 0; i < 10; ++i) EXPECT_EQ(gate->take_token(t), t) << i;
  EXPECT_EQ(gate->take_token(t), t + 1'000'000);
  EXPECT_EQ(gate->take_token(t), t + 2'000'000);
  // Idle for a second: the bucket is full again.
  for (int i = 0; i < 10; ++i) EXPECT_EQ(gate->take_token(t + 1'000'000'000), t + 1'000'000'000);
  Gate* one = Gate::create(fault_options("capacity:50"));  // bucket max(1, 0): one at a time
  EXPECT_EQ(one->take_token(t), t);
  EXPECT_EQ(one->take_token(t), t + 20'000'000);
}

std::vector<std::string> load_drive(std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"drive", "--pattern", "load", "--mechanism", "tcp",
                                "--endpoint", "127.0.0.1:1", "--clients", "4", "--rate", "100",
                                "--duration-ms", "50", "--samples-file", "s",
                                "--records-file", "r", "--result-file", "j"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST(LoadCli, DriveDefaultsAndRefusals) {
  const auto o = std::get<DriveOptions>(parse_command_line(load_drive()));
  EXPECT_EQ(o.clients, 4u);
  EXPECT_EQ(o.rate, 100u);
  EXPECT_FALSE(o.poisson);
  EXPECT_EQ(o.warmup_ms, 0u);
  EXPECT_TRUE(std::get<DriveOptions>(parse_command_line(load_drive({"--arrival", "poisson"})))
                  .poisson);
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--iterations", "5"}, {"--warmup", "1"}, {"--payload", "bytes"},
        {"--connections", "3"}, {"--connectors", "3"}, {"--messages", "3"}, {"--void"},
        {"--one-way"}, {"--warmup-samples-file", "w"}, {"--arrival", "uniform"},
        {"--warmup-ms", "3600001"}})
    EXPECT_THROW(parse_command_line(load_drive(bad)), UsageError) << bad[0];
  auto without = [](const std::string& flag, const std::string& value) {
    auto a = load_drive();
    const auto it = std::find(a.begin(), a.end(), flag);
    a.erase(it, it + 2);
    a.insert(a.end(), {flag, value});
    return a;
  };
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--clients", "0"}, {"--clients", "1025"}, {"--rate", "0"}, {"--rate", "10000001"},
           {"--duration-ms", "0"}, {"--duration-ms", "3600001"}})
    EXPECT_THROW(parse_command_line(without(flag, value)), UsageError) << flag << value;
  // The load flags with another pattern.
  EXPECT_THROW(parse_command_line({"drive", "--mechanism", "tcp", "--endpoint", "127.0.0.1:1",
                                   "--request-size", "1", "--response-size", "1",
                                   "--iterations", "1", "--samples-file", "s", "--result-file",
                                   "j", "--rate", "3"}),
               UsageError);
}

// --release-at (11.5.3 step 1): load's as burst's, the same values; rr and stream refuse it.
TEST(LoadCli, ReleaseAtWithLoadAndBurstOnly) {
  EXPECT_EQ(std::get<DriveOptions>(parse_command_line(load_drive())).release_at_ns, 0);
  EXPECT_EQ(std::get<DriveOptions>(
                parse_command_line(load_drive({"--release-at", "1767225600000000000"})))
                .release_at_ns,
            1'767'225'600'000'000'000);
  EXPECT_EQ(std::get<DriveOptions>(
                parse_command_line(load_drive({"--release-at", "9223372036854775807"})))
                .release_at_ns,
            INT64_MAX);
  for (const std::string bad : {"0", "-1", "1.5", "now", "9223372036854775808"}) {
    const std::string why = test::usage_error(load_drive({"--release-at", bad}));
    EXPECT_NE(why.find("bad value for --release-at"), std::string::npos) << bad << ": " << why;
    EXPECT_NE(why.find(bad), std::string::npos) << "names the value: " << why;
  }
  const std::vector<std::string> common = {"drive", "--mechanism", "tcp", "--endpoint",
                                           "127.0.0.1:1", "--samples-file", "s",
                                           "--result-file", "j", "--release-at", "1"};
  for (const std::vector<std::string>& pattern :
       {std::vector<std::string>{"--request-size", "1", "--response-size", "1", "--iterations",
                                 "1"},
        {"--pattern", "rr", "--request-size", "1", "--response-size", "1", "--iterations", "1"},
        {"--pattern", "stream", "--message-size", "16", "--messages", "4"}}) {
    auto a = common;
    a.insert(a.end(), pattern.begin(), pattern.end());
    EXPECT_EQ(test::usage_error(a), "flag --release-at needs --pattern burst or load")
        << pattern[0] << " " << pattern[1];
  }
}

TEST(LoadCli, ServeTakesOnlyLoadAndItsModelFlags) {
  auto serve = [](std::vector<std::string> extra) {
    std::vector<std::string> a = {"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const auto o = std::get<ServeOptions>(
      parse_command_line(serve({"--pattern", "load", "--server-model", "thread"})));
  EXPECT_TRUE(o.load);
  EXPECT_EQ(std::get<ServeOptions>(parse_command_line(serve(
                {"--pattern", "load", "--server-model", "epoll", "--fault", "capacity:250"})))
                .capacity_per_s,
            250u);
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--pattern", "load"},
        {"--pattern", "rr", "--server-model", "thread"},
        {"--pattern", "load", "--server-model", "thread", "--connections", "2"},
        {"--pattern", "load", "--server-model", "thread", "--phases-file", "p"},
        {"--pattern", "load", "--server-model", "thread", "--fault", "capacity:0"},
        {"--pattern", "load", "--server-model", "thread", "--fault", "capacity:x"}})
    EXPECT_THROW(parse_command_line(serve(bad)), UsageError) << bad.back();
  // What a server cannot do is unsupported (exit 7), before READY.
  for (const std::vector<std::string>& no :
       {std::vector<std::string>{"--pattern", "load", "--server-model", "fork-join"},
        {"--pattern", "load", "--server-model", "thread", "--fault", "flip-stream-byte"},
        {"--fault", "stall"},
        {"--server-model", "thread", "--connections", "1", "--phases-file", "p", "--fault",
         "stall"}})
    EXPECT_EQ(test::run_peer(serve(no)).exit_code, 7) << no.back();
}

// Load over sysv-mq names both its queues (11.5.5), request queue first; only it takes two keys.
TEST(LoadCli, SysvMqLoadTakesTwoKeys) {
  auto queue = [](const std::string& pattern, const std::string& mechanism,
                  const std::string& endpoint) {
    std::vector<std::string> a = {"drive", "--mechanism", mechanism, "--endpoint", endpoint,
                                  "--samples-file", "s", "--result-file", "j",
                                  "--pattern", pattern};
    if (pattern == "load")
      a.insert(a.end(), {"--clients", "2", "--rate", "10", "--duration-ms", "5",
                         "--records-file", "r"});
    else
      a.insert(a.end(), {"--request-size", "1", "--response-size", "1", "--iterations", "1"});
    return a;
  };
  const auto o = std::get<DriveOptions>(
      parse_command_line(queue("load", "sysv-mq", "sysv:0x1c1a0123,0x1C1A8123")));
  EXPECT_EQ(std::get<KeyEndpoint>(o.endpoint).key, 0x1c1a0123);
  EXPECT_EQ(std::get<KeyEndpoint>(o.endpoint).reply_key, 0x1c1a8123);
  for (const auto& [pattern, mechanism, endpoint] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"load", "sysv-mq", "sysv:0x1c1a0123"},
           {"load", "sysv-mq", "sysv:0x1c1a0123,"},
           {"load", "sysv-mq", "sysv:0x1c1a0123,0x0"},
           {"load", "sysv-mq", "sysv:0x1c1a0123,0x1c1a8123,0x1"},
           {"rr", "sysv-mq", "sysv:0x1c1a0123,0x1c1a8123"},
           {"rr", "sysv-shm", "sysv:0x1c1a0123,0x1c1a8123"}})
    EXPECT_THROW(parse_command_line(queue(pattern, mechanism, endpoint)), UsageError) << endpoint;
}

// --backlog is remembered as given, whatever its value (512 is the default): a server that has
// no backlog refuses it (11.5.4, 11.5.5).
TEST(LoadCli, BacklogIsRememberedAsGiven) {
  std::vector<std::string> a = {"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
                                "--pattern", "load", "--server-model", "thread"};
  EXPECT_FALSE(std::get<ServeOptions>(parse_command_line(a)).backlog_given);
  a.insert(a.end(), {"--backlog", "512"});
  const auto o = std::get<ServeOptions>(parse_command_line(a));
  EXPECT_TRUE(o.backlog_given);
  EXPECT_EQ(o.backlog, 512u);
}

}  // namespace
}  // namespace ipclab::load
