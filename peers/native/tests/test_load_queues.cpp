// load over a message queue (PROTOCOL.md 11.5.5): the client against both models' servers over
// sysv-mq and posix-mq (the files agreeing, answers of many messages, no queue left behind, even
// by a killed client), and the limits of client and server.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <mqueue.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "load_queues.hpp"
#include "support.hpp"

namespace ipclab::load {
namespace {

using namespace queue_test;

// 3 clients, 200 req/s, 300 ms measured (60 requests), 100 B out, 300 B back; twice against the
// same server (a second client's reply queues are new queues of the same names).
TEST_P(QueueLoad, ServesTheScheduleAndTheFilesAgree) {
  test::TempDir dir;
  test::Server server = queue_server(mechanism(), model());
  ASSERT_TRUE(server.ready()) << server.wait().err;
  EXPECT_EQ(server.ready_json()["server_model"], model());
  const std::string endpoint = server.endpoint();
  if (mechanism() == "sysv-mq") {
    ASSERT_EQ(keys_of(endpoint).size(), 2u) << endpoint;
    EXPECT_EQ(keys_of(endpoint)[1], keys_of(endpoint)[0] | 0x8000) << endpoint;
    EXPECT_EQ(keys_of(endpoint)[0] & 0xFFFF8000, 0x1C1A0000) << endpoint;
    EXPECT_EQ(endpoint.find_first_of("ABCDEF"), std::string::npos) << endpoint;  // lowercase
  } else {
    EXPECT_EQ(endpoint, "posix:/ipclab-" + std::to_string(server.pid()));
  }
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    const LoadRun run = drive_load(mechanism(), endpoint, dir,
                                   {"--clients", "3", "--rate", "200", "--duration-ms", "300",
                                    "--request-size", "100", "--response-size", "300"});
    ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
    EXPECT_EQ(run.result["status"], "ok");
    EXPECT_EQ(run.result["pattern"], "load");
    EXPECT_EQ(run.result["iterations"], 60);
    EXPECT_EQ(run.result["requests_ok"], 60);
    EXPECT_EQ(run.result["errors"], nlohmann::json::object());
    ASSERT_EQ(run.rows.size(), 60u);
    std::vector<std::int64_t> expected;
    for (std::size_t k = 0; k < run.rows.size(); ++k) {
      const Row& r = run.rows[k];
      EXPECT_EQ(r.request, k);
      EXPECT_EQ(r.connection, k % 3);
      EXPECT_TRUE(r.measured);
      EXPECT_EQ(r.intended, static_cast<std::int64_t>(k) * 5'000'000);
      EXPECT_EQ(r.error, "");
      EXPECT_GE(r.sent, r.intended - 1'000);
      EXPECT_GT(r.received, r.sent);
      expected.push_back(r.received - r.intended);
    }
    EXPECT_EQ(run.samples, expected);
    if (mechanism() == "posix-mq") {  // the client unlinked its reply queues
      EXPECT_EQ(posix_queues_of(server.pid()).size(), 1u);  // the request queue
    }
  }
  const pid_t pid = server.pid();
  server.close_stdin();
  const test::ChildResult end = server.wait();
  EXPECT_EQ(end.exit_code, 0);
  EXPECT_EQ(end.err, "");
  EXPECT_EQ(left_behind(mechanism(), endpoint, pid), 0u);
}

// An answer of 13 messages (100000 B): more than a posix-mq reply queue holds (10), so the
// server waits for room after its first message; sysv-mq's reply queue (16384 B) holds two.
TEST_P(QueueLoad, AnAnswerOfManyMessagesReachesItsConnection) {
  test::TempDir dir;
  test::Server server = queue_server(mechanism(), model());
  ASSERT_TRUE(server.ready()) << server.wait().err;
  const LoadRun run = drive_load(mechanism(), server.endpoint(), dir,
                                 {"--clients", "4", "--rate", "400", "--duration-ms", "100",
                                  "--request-size", "8168", "--response-size", "100000"});
  ASSERT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.result["requests_ok"], 40);
  server.signal(SIGTERM);
  const test::ChildResult end = server.wait();
  EXPECT_EQ(end.exit_code, 0);
  EXPECT_EQ(end.err, "");
}

INSTANTIATE_TEST_SUITE_P(BothQueues, QueueLoad,
                         ::testing::Values("sysv-mq-iterative", "sysv-mq-thread-pool",
                                           "posix-mq-iterative", "posix-mq-thread-pool"),
                         test::param_name);

// A request over 8168 bytes would be two messages that interleave with other clients': unsupported
// on the client, before anything is opened (no server needed).
TEST(QueueLoadLimits, ARequestOverOneMessageIsUnsupported) {
  test::TempDir dir;
  for (const auto& [mechanism, endpoint] :
       {std::pair{"sysv-mq", "sysv:0x1c1a0001,0x1c1a8001"}, {"posix-mq", "posix:/ipclab-1"}}) {
    const LoadRun run = drive_load(mechanism, endpoint, dir,
                                   {"--clients", "2", "--rate", "100", "--duration-ms", "10",
                                    "--request-size", "8169"});
    EXPECT_EQ(run.child.exit_code, 7) << mechanism << run.child.err;
    EXPECT_EQ(run.result["error_kind"], "unsupported");
  }
}

// What a queue's load server is not is unsupported (exit 7), before it creates anything.
TEST(QueueLoadLimits, WhatTheServerIsNotIsUnsupported) {
  for (const char* mechanism : {"sysv-mq", "posix-mq"}) {
    for (const std::vector<std::string>& no :
         {std::vector<std::string>{"--pattern", "load", "--server-model", "thread"},
          {"--pattern", "load", "--server-model", "epoll"},
          {"--pattern", "load", "--server-model", "iterative", "--fault", "flip-response-byte"},
          {"--pattern", "load", "--server-model", "iterative", "--backlog", "512"},
          {"--pattern", "load", "--server-model", "thread-pool", "--nodelay", "on"},
          {"--pattern", "load", "--server-model", "iterative", "--nodelay", "off"},
          {"--server-model", "iterative", "--connections", "1", "--phases-file", "/tmp/p"}}) {
      std::vector<std::string> a = {"serve", "--mechanism", mechanism, "--endpoint", "auto"};
      a.insert(a.end(), no.begin(), no.end());
      const test::ChildResult r = test::run_peer(a);
      EXPECT_EQ(r.exit_code, 7) << mechanism << " " << no[3] << " " << r.err;
    }
  }
}

// A reply queue its name already has (a leftover) ends the case as an io error, as a failed
// connect does; the client unlinks the reply queues it made.
TEST(QueueLoadLimits, ALeftoverReplyQueueIsAnIoError) {
  test::TempDir dir;
  test::Server server = queue_server("posix-mq", "iterative");
  ASSERT_TRUE(server.ready()) << server.wait().err;
  const std::string leftover = "/ipclab-" + std::to_string(server.pid()) + "-r1";
  const mqd_t q = ::mq_open(leftover.c_str(), O_RDONLY | O_CREAT | O_EXCL, 0600, nullptr);
  ASSERT_NE(q, static_cast<mqd_t>(-1));
  const LoadRun run = drive_load("posix-mq", server.endpoint(), dir,
                                 {"--clients", "3", "--rate", "100", "--duration-ms", "10"});
  EXPECT_EQ(run.child.exit_code, 5) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "io");
  EXPECT_EQ(posix_queues_of(server.pid()).size(), 2u);  // the request queue and the leftover
  ::mq_close(q);
  ::mq_unlink(leftover.c_str());
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

// A client killed outright unlinks nothing: the server unlinks every reply queue it opened when
// it stops (11.5.5).
TEST(QueueLoadLimits, TheServerUnlinksTheReplyQueuesOfAKilledClient) {
  test::TempDir dir;
  test::Server server = queue_server("posix-mq", "thread-pool");
  ASSERT_TRUE(server.ready()) << server.wait().err;
  const std::vector<std::string> args = {
      IPCLAB_PEER_EXE, "drive", "--pattern", "load", "--mechanism", "posix-mq", "--endpoint",
      server.endpoint(), "--clients", "3", "--rate", "300", "--duration-ms", "20000",
      "--samples-file", dir.file("s"), "--records-file", dir.file("r"), "--result-file",
      dir.file("j")};
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t client = -1;
  ASSERT_EQ(::posix_spawn(&client, argv[0], nullptr, nullptr, argv.data(), environ), 0);
  // Until the server has each reply queue open (its descriptors link to their names).
  const auto replies_open = [&] {
    std::size_t n = 0;
    const std::string fds = "/proc/" + std::to_string(server.pid()) + "/fd";
    for (const auto& fd : std::filesystem::directory_iterator(fds)) {
      std::error_code ec;
      const std::string to = std::filesystem::read_symlink(fd.path(), ec).string();
      n += to.rfind("/ipclab-", 0) == 0 && to.find("-r") != std::string::npos;
    }
    return n;
  };
  for (int i = 0; i < 1000 && replies_open() < 3; ++i) ::usleep(10'000);
  ::kill(client, SIGKILL);
  ::waitpid(client, nullptr, 0);
  EXPECT_EQ(posix_queues_of(server.pid()).size(), 4u);  // the request queue, 3 reply queues
  const pid_t pid = server.pid();
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
  EXPECT_EQ(posix_queues_of(pid).size(), 0u);
}

}  // namespace
}  // namespace ipclab::load
