// load with --release-at (PROTOCOL.md 11.5.3 step 1): T0 waits until the wall clock reads NS,
// on every load client path (tcp's event loop, the threads of the message queues and of the RPC
// frameworks), and the result says how late T0 came. Behaviour only: the bounds are this test's
// own clock reads, or loose (a shared machine).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "load_runs.hpp"
#include "support.hpp"

namespace ipclab::load {
namespace {

using namespace load_test;

std::int64_t wall_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The parameter: MECHANISM-MODEL, one per way a load client reads T0: tcp-epoll (the event
// loop), posix-mq-iterative (a queue's threads), grpc-sync (an RPC framework's threads).
class LoadReleaseAt : public ::testing::TestWithParam<std::string> {
 protected:
  std::string mechanism() const { return GetParam().substr(0, GetParam().rfind('-')); }
  std::string model() const { return GetParam().substr(GetParam().rfind('-') + 1); }

  // 2 clients, 200 req/s for 100 ms (20 requests) against a fresh server, with extra.
  LoadRun run(const std::vector<std::string>& extra) {
    test::TempDir dir;
    const bool queue = mechanism().find("-mq") != std::string::npos;
    test::Server server({"serve", "--pattern", "load", "--mechanism", mechanism(), "--endpoint",
                         queue ? "auto" : "127.0.0.1:0", "--server-model", model()});
    EXPECT_TRUE(server.ready());
    if (!server.ready()) return {};
    std::vector<std::string> a = {"--clients", "2", "--rate", "200", "--duration-ms", "100"};
    a.insert(a.end(), extra.begin(), extra.end());
    LoadRun out = drive_load(mechanism(), server.endpoint(), dir, a);
    server.close_stdin();
    EXPECT_EQ(server.wait().exit_code, 0);
    return out;
  }
};

// NS 300 ms ahead: the schedule runs on a T0 at or after NS. The peer reads the wall clock just
// before T0, so at + late is no later than T0 on the wall clock, and every answer's instant
// (T0 + received_ns) comes before this test's read after the client exited.
TEST_P(LoadReleaseAt, T0WaitsForTheWallClock) {
  const std::int64_t at = wall_ns() + 300'000'000;
  const LoadRun run = this->run({"--release-at", std::to_string(at)});
  const std::int64_t wall1 = wall_ns();
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.result["status"], "ok");
  EXPECT_EQ(run.result["requests_ok"], 20);
  EXPECT_GE(wall1, at);
  ASSERT_TRUE(run.result.contains("release_late_ns")) << run.result.dump();
  const std::int64_t late = run.result["release_late_ns"].get<std::int64_t>();
  EXPECT_GE(late, 0);
  EXPECT_LE(late, wall1 - at);
  EXPECT_LT(late, 5'000'000'000);  // the wake-up's delay, or a slow set-up past 300 ms
  ASSERT_EQ(run.rows.size(), 20u);
  for (const Row& r : run.rows) {
    EXPECT_EQ(r.error, "") << r.request;
    EXPECT_LE(at + late + r.received, wall1) << r.request;
  }
}

// An instant already past: T0 at once, late by at least its age, and no more than the run.
TEST_P(LoadReleaseAt, APastInstantStartsAtOnce) {
  const std::int64_t wall0 = wall_ns(), at = wall0 - 1'000'000'000;
  const LoadRun run = this->run({"--release-at", std::to_string(at)});
  const std::int64_t wall1 = wall_ns();
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.result["requests_ok"], 20);
  const std::int64_t late = run.result["release_late_ns"].get<std::int64_t>();
  EXPECT_GE(late, wall0 - at);  // T0 after this test's first read ...
  EXPECT_LE(late, wall1 - at);  // ... and before its last
}

// Without the flag the result has no release_late_ns (nothing new).
TEST_P(LoadReleaseAt, NoFieldWithoutTheFlag) {
  const LoadRun run = this->run({});
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.result["requests_ok"], 20);
  EXPECT_FALSE(run.result.contains("release_late_ns"));
}

INSTANTIATE_TEST_SUITE_P(EveryT0, LoadReleaseAt,
                         ::testing::Values("tcp-epoll", "posix-mq-iterative", "grpc-sync"),
                         test::param_name);

// Seen from the server's side: nothing of the schedule arrives before NS. A stand-in server
// takes the one connection, reads the wall clock when its first byte comes and closes it (the
// client records that request's error and the rest as not sent, and ends with status ok).
TEST(LoadReleaseAtTcp, NothingArrivesBeforeTheInstant) {
  test::Loopback listener = test::bind_loopback(SOCK_STREAM);
  ASSERT_EQ(::listen(listener.fd, 4), 0);
  const timeval limit{10, 0};  // a client that never comes fails the test, not hangs it
  ::setsockopt(listener.fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  std::int64_t first_byte = 0;
  std::thread stand_in([&first_byte, fd = listener.fd, limit] {
    const int c = ::accept(fd, nullptr, nullptr);
    if (c < 0) return;
    ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    char byte;
    if (::recv(c, &byte, 1, 0) == 1) first_byte = wall_ns();
    ::close(c);
  });
  test::TempDir dir;
  const std::int64_t at = wall_ns() + 300'000'000;
  const LoadRun run = drive_load("tcp", listener.endpoint, dir,
                                 {"--clients", "1", "--rate", "1000", "--duration-ms", "5",
                                  "--release-at", std::to_string(at)});
  stand_in.join();
  ::close(listener.fd);
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.result["status"], "ok");
  ASSERT_NE(first_byte, 0) << "the stand-in saw no request";
  EXPECT_GE(first_byte, at);
  const std::int64_t late = run.result["release_late_ns"].get<std::int64_t>();
  EXPECT_GE(late, 0);
  EXPECT_LE(at + late, first_byte);  // T0 precedes request 0's send, which precedes its arrival
  ASSERT_EQ(run.rows.size(), 5u);
  EXPECT_NE(run.rows[0].error, "");  // the stand-in closed instead of answering
}

}  // namespace
}  // namespace ipclab::load
