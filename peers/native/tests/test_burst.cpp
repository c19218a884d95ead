// burst (PROTOCOL.md 11.4): the phase bookkeeping, the two CSV files, the burst flags and the
// release (--release-at).
#include <gtest/gtest.h>

#include <time.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "burst/records.hpp"
#include "cli.hpp"
#include "error.hpp"
#include "support.hpp"

namespace ipclab::burst {
namespace {

std::string phases_text(const std::vector<ConnTimes>& times) {
  std::string buf(phases_capacity(times.size()), '\0');
  buf.resize(format_phases(times.data(), times.size(), buf.data()));
  return buf;
}

TEST(BurstPhases, EveryPhaseFromItsTwoReadings) {
  std::vector<ConnTimes> t(2);
  t[0] = {.accept_start = 1000, .accept_end = 1500, .next_accept_start = 1700,
          .spawn_start = 1520, .spawn_end = 1600, .task_start = 1650, .transfer_start = 1660,
          .transfer_end = 1900, .close_end = 2000, .worker = 3};
  t[0].finish(ConnError::none, 2000);
  // An iterative connection, the acceptor's last: no loop, no spawn, no start delay.
  t[1] = {.accept_start = 1700, .accept_end = 1800, .transfer_start = 1810,
          .transfer_end = 1850};
  t[1].finish(ConnError::payload_mismatch, 1870);
  EXPECT_EQ(phases_text(t),
            "conn_index,accept_ns,loop_ns,spawn_ns,start_delay_ns,transfer_ns,total_ns,"
            "accept_start_ns,worker,error\n"
            "0,500,200,80,130,240,500,1000,3,\n"
            "1,100,,,,40,70,1700,0,payload-mismatch\n");
}

TEST(BurstPhases, AnUnfinishedConnectionIsLostWithoutTransferOrTotal) {
  std::vector<ConnTimes> t(1);
  t[0] = {.accept_start = 10, .accept_end = 20, .spawn_start = 25, .spawn_end = 30,
          .transfer_start = 40, .transfer_end = 50};
  const Phases p = phases_of(t[0]);
  EXPECT_EQ(p.error, ConnError::lost);
  EXPECT_EQ(p.transfer, kEmpty);
  EXPECT_EQ(p.total, kEmpty);
  EXPECT_EQ(p.start_delay, kEmpty);  // the task never started
  EXPECT_EQ(phases_text(t).substr(kPhasesHeader.size()), "0,10,,5,,,,10,0,lost\n");
}

TEST(BurstPhases, CapacityHoldsTheLongestRows) {
  std::vector<ConnTimes> t(3);
  for (ConnTimes& c : t) {
    c = {.accept_start = 1, .accept_end = INT64_MAX / 2, .next_accept_start = INT64_MAX,
         .spawn_start = 1, .spawn_end = INT64_MAX, .task_start = INT64_MAX, .transfer_start = 1,
         .transfer_end = INT64_MAX, .worker = INT32_MIN};
    c.finish(ConnError::payload_mismatch, INT64_MAX);
  }
  EXPECT_LE(phases_text(t).size(), phases_capacity(3));
}

TEST(BurstRecords, OneRowPerConnectionWithSlowConnectsFlagged) {
  std::vector<ConnRecord> r(2);
  r[0] = {.connect_start = 5, .connect_ns = 1'000'000'001, .response_ns = 300, .total_ns = 1'000'000'400,
          .end = 0, .process = 1, .connector = 7, .error = 0, .done = 1};
  r[1] = {.connect_start = 6, .connect_ns = 90, .response_ns = kEmpty, .total_ns = 95, .end = 0,
          .process = 0, .connector = 2,
          .error = static_cast<std::int32_t>(ConnError::refused), .done = 1};
  EXPECT_EQ(format_records(r.data(), r.size()),
            "conn_index,process,connector,connect_start_ns,connect_ns,response_ns,total_ns,error,"
            "slow_connect\n"
            "0,1,7,5,1000000001,300,1000000400,,1\n"
            "1,0,2,6,90,,95,refused,0\n");
}

std::vector<std::string> burst_drive(std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"drive", "--pattern", "burst", "--mechanism", "tcp",
                                "--endpoint", "127.0.0.1:1", "--connections", "50",
                                "--connectors", "10", "--samples-file", "s",
                                "--records-file", "r", "--result-file", "j"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST(BurstCli, DriveDefaultsAndRefusals) {
  const auto o = std::get<DriveOptions>(parse_command_line(burst_drive()));
  EXPECT_EQ(o.connections, 50u);
  EXPECT_EQ(o.iterations, 50u);
  EXPECT_EQ(o.connectors, 10u);
  EXPECT_EQ(o.processes, 1u);
  EXPECT_EQ(o.request_size, 1000u);
  EXPECT_EQ(o.response_size, 8u);
  EXPECT_THROW(parse_command_line(burst_drive({"--iterations", "5"})), UsageError);
  EXPECT_THROW(parse_command_line(burst_drive({"--processes", "0"})), UsageError);
  EXPECT_THROW(parse_command_line({"drive", "--mechanism", "tcp", "--endpoint", "127.0.0.1:1",
                                   "--request-size", "1", "--response-size", "1",
                                   "--iterations", "1", "--samples-file", "s", "--result-file",
                                   "j", "--connectors", "3"}),
               UsageError);
}

TEST(BurstCli, ServeFlagsNeedAServerModel) {
  const std::vector<std::string> base = {"serve", "--mechanism", "tcp", "--endpoint",
                                         "127.0.0.1:0"};
  auto with = [&](std::vector<std::string> extra) {
    auto a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const auto o = std::get<ServeOptions>(parse_command_line(
      with({"--server-model", "thread", "--connections", "9", "--phases-file", "p"})));
  EXPECT_EQ(o.server_model, "thread");
  EXPECT_EQ(o.backlog, 512u);
  EXPECT_EQ(o.workers, 0u);
  // The rr server takes --backlog too since contract 6 (test_conditions.cpp); --workers not.
  EXPECT_EQ(std::get<ServeOptions>(parse_command_line(with({"--backlog", "5"}))).backlog, 5u);
  EXPECT_THROW(parse_command_line(with({"--workers", "5"})), UsageError);
  EXPECT_THROW(parse_command_line(with({"--server-model", "thread", "--phases-file", "p"})),
               UsageError);
  EXPECT_THROW(parse_command_line(with({"--server-model", "thread", "--connections", "9",
                                        "--phases-file", "p", "--backlog", "0"})),
               UsageError);
}

// Burst's and load's (test_load.cpp has load's); a usage error with another pattern.
TEST(BurstCli, ReleaseAtIsAPositiveWallClockTime) {
  EXPECT_EQ(std::get<DriveOptions>(parse_command_line(burst_drive())).release_at_ns, 0);
  const auto o = std::get<DriveOptions>(
      parse_command_line(burst_drive({"--release-at", "1767225600000000000"})));
  EXPECT_EQ(o.release_at_ns, 1'767'225'600'000'000'000);
  EXPECT_EQ(std::get<DriveOptions>(parse_command_line(burst_drive({"--release-at", "1"})))
                .release_at_ns, 1);
  for (const std::string bad : {"0", "-1", "-1767225600000000000", "17e17", "1.5", "now", "",
                                " 1", "9223372036854775808"}) {
    const std::string why = test::usage_error(burst_drive({"--release-at", bad}));
    EXPECT_NE(why.find("bad value for --release-at"), std::string::npos) << bad << ": " << why;
    EXPECT_NE(why.find(bad), std::string::npos) << "names the value: " << why;
  }
  const std::vector<std::string> rr = {
      "drive", "--mechanism", "tcp", "--endpoint", "127.0.0.1:1", "--request-size", "1",
      "--response-size", "1", "--iterations", "1", "--samples-file", "s", "--result-file", "j",
      "--release-at", "1767225600000000000"};
  EXPECT_EQ(test::usage_error(rr), "flag --release-at needs --pattern burst or load");
  EXPECT_NE(test::usage_error({"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
                         "--server-model", "thread", "--connections", "9", "--phases-file", "p",
                         "--release-at", "1"}),
            "");
}

// The peer's usage-error path: exit code 2, one line naming the flag and the value.
TEST(BurstCli, ReleaseAtUsageErrorExitsTwo) {
  const test::ChildResult run = test::run_peer(burst_drive({"--release-at", "-5"}));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find("--release-at"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("-5"), std::string::npos) << run.err;
}

// A burst of `connections` from extra's connectors against an iterative server: the client's
// exit, its result file and its records (each row's fields, header left out).
struct BurstOutcome {
  test::ChildResult child;
  nlohmann::json result;
  std::vector<std::vector<std::string>> records;
};

BurstOutcome run_burst(std::uint64_t connections, const std::vector<std::string>& extra) {
  test::TempDir dir;
  const std::string n = std::to_string(connections);
  test::Server server({"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
                       "--server-model", "iterative", "--connections", n, "--phases-file",
                       dir.file("phases.csv")});
  EXPECT_TRUE(server.ready());
  if (!server.ready()) return {};
  std::vector<std::string> args = {
      "drive", "--pattern", "burst", "--mechanism", "tcp", "--endpoint", server.endpoint(),
      "--connections", n, "--samples-file", dir.file("s.bin"), "--records-file",
      dir.file("records.csv"), "--result-file", dir.file("result.json")};
  args.insert(args.end(), extra.begin(), extra.end());
  BurstOutcome out{test::run_peer(args), {}, {}};
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
  if (out.child.exit_code != 0) return out;
  out.result = nlohmann::json::parse(test::read_file(dir.file("result.json")));
  std::istringstream records(test::read_file(dir.file("records.csv")));
  std::string line;
  std::getline(records, line);  // the header
  while (std::getline(records, line)) {
    std::vector<std::string>& f = out.records.emplace_back();
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) f.push_back(field);
  }
  return out;
}

constexpr std::size_t kConnectStart = 3, kTotal = 6;  // records.csv columns

std::int64_t clock_ns(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The burst's start is the release, before any connector's first connection: burst_ns covers
// every connection's span from the earliest start to the last end (it was stamped by the
// barrier's serial thread after the barrier, which can run when most connections are done).
TEST(BurstRun, DurationSpansEveryConnection) {
  const BurstOutcome run = run_burst(400, {"--connectors", "100"});
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  std::int64_t first = INT64_MAX, last = 0;
  for (const auto& f : run.records) {
    const std::int64_t start = std::stoll(f[kConnectStart]), total = std::stoll(f[kTotal]);
    first = std::min(first, start);
    last = std::max(last, start + total);
  }
  EXPECT_EQ(run.result["connections_ok"], 400);
  EXPECT_GE(run.result["burst_ns"].get<std::int64_t>(), last - first);
  EXPECT_LE(run.result["release_ns"].get<std::int64_t>(), first);
  EXPECT_FALSE(run.result.contains("release_late_ns"));  // only with --release-at
}

// --release-at: every connector of both processes waits for the wall clock, and the release
// (monotonic) maps to a wall-clock time at or after the agreed instant. Behaviour only: the
// bounds on the lateness are loose (a shared machine), or brackets of this test's own reads.
TEST(BurstRun, ReleaseAtWaitsForTheWallClock) {
  // Monotonic first, then the wall clock: wall0 + (release - mono0) is then no earlier than
  // the wall clock at the release (both clocks advance at one rate; only a step differs).
  const std::int64_t mono0 = clock_ns(CLOCK_MONOTONIC), wall0 = clock_ns(CLOCK_REALTIME);
  const std::int64_t at = wall0 + 300'000'000;
  const BurstOutcome run = run_burst(
      40, {"--connectors", "5", "--processes", "2", "--release-at", std::to_string(at)});
  const std::int64_t wall1 = clock_ns(CLOCK_REALTIME);
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.result["connections_ok"], 40);
  EXPECT_GE(wall1, at);
  const std::int64_t release = run.result["release_ns"].get<std::int64_t>();
  const std::int64_t late = run.result["release_late_ns"].get<std::int64_t>();
  EXPECT_GE(wall0 + (release - mono0), at + late);  // the peer reads its wall clock first
  EXPECT_GE(late, 0);
  EXPECT_LE(late, wall1 - at);
  EXPECT_LT(late, 5'000'000'000);  // small-ish: the wake-up, or a slow set-up past 300 ms
  ASSERT_EQ(run.records.size(), 40u);
  std::int64_t last = 0;
  for (const auto& f : run.records) {
    const std::int64_t start = std::stoll(f[kConnectStart]), total = std::stoll(f[kTotal]);
    EXPECT_GE(start, release) << "connection " << f[0];
    last = std::max(last, start + total);
  }
  EXPECT_GE(run.result["burst_ns"].get<std::int64_t>(), last - release);
}

// An instant already past releases as soon as all have arrived, late by at least its age.
TEST(BurstRun, ReleaseAtInThePastReleasesAtOnce) {
  const std::int64_t wall0 = clock_ns(CLOCK_REALTIME), at = wall0 - 1'000'000'000;
  const BurstOutcome run = run_burst(
      20, {"--connectors", "4", "--processes", "2", "--release-at", std::to_string(at)});
  const std::int64_t wall1 = clock_ns(CLOCK_REALTIME);
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.result["connections_ok"], 20);
  const std::int64_t late = run.result["release_late_ns"].get<std::int64_t>();
  EXPECT_GT(late, 0);
  EXPECT_GE(late, wall0 - at);  // released after this test's first read ...
  EXPECT_LE(late, wall1 - at);  // ... and before its last
}

}  // namespace
}  // namespace ipclab::burst
