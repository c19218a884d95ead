// burst (PROTOCOL.md 11.4): the phase bookkeeping, the two CSV files and the burst flags.
#include <gtest/gtest.h>

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
  EXPECT_THROW(parse_command_line(with({"--backlog", "5"})), UsageError);
  EXPECT_THROW(parse_command_line(with({"--server-model", "thread", "--phases-file", "p"})),
               UsageError);
  EXPECT_THROW(parse_command_line(with({"--server-model", "thread", "--connections", "9",
                                        "--phases-file", "p", "--backlog", "0"})),
               UsageError);
}

// The burst's start is the release, before any connector's first connection: burst_ns covers
// every connection's span from the earliest start to the last end (it was stamped by the
// barrier's serial thread after the barrier, which can run when most connections are done).
TEST(BurstRun, DurationSpansEveryConnection) {
  test::TempDir dir;
  test::Server server({"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
                       "--server-model", "iterative", "--connections", "400", "--phases-file",
                       dir.file("phases.csv")});
  ASSERT_TRUE(server.ready());
  const test::ChildResult run = test::run_peer(
      {"drive", "--pattern", "burst", "--mechanism", "tcp", "--endpoint", server.endpoint(),
       "--connections", "400", "--connectors", "100", "--samples-file", dir.file("s.bin"),
       "--records-file", dir.file("records.csv"), "--result-file", dir.file("result.json")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto result = nlohmann::json::parse(test::read_file(dir.file("result.json")));
  std::int64_t first = INT64_MAX, last = 0;
  const std::string records = test::read_file(dir.file("records.csv"));
  std::size_t pos = records.find('\n') + 1;
  while (pos < records.size()) {
    const std::size_t eol = records.find('\n', pos);
    std::vector<std::string> f;
    for (std::size_t b = pos;;) {
      const std::size_t comma = records.find(',', b);
      if (comma == std::string::npos || comma > eol) {
        f.push_back(records.substr(b, eol - b));
        break;
      }
      f.push_back(records.substr(b, comma - b));
      b = comma + 1;
    }
    const std::int64_t start = std::stoll(f[3]), total = std::stoll(f[6]);
    first = std::min(first, start);
    last = std::max(last, start + total);
    pos = eol + 1;
  }
  EXPECT_EQ(result["connections_ok"], 400);
  EXPECT_GE(result["burst_ns"].get<std::int64_t>(), last - first);
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

}  // namespace
}  // namespace ipclab::burst
