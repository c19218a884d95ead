// The message channels (sysv-mq, posix-mq, sysv-shm), POSIX shared memory (shm, shm-spin,
// shm-futex) and the file mechanisms (file, file-poll) of PROTOCOL.md sections 4.1 to 4.3: the
// stream-over-messages adapter in process, then ipclab-peer run as the orchestrator runs it over
// each of them: round trips of every size, faults, timeouts, and the removal of every kernel
// object the server created. What only some of them do is in test_message_channels.cpp,
// test_posix_shm.cpp and test_file_mechanisms.cpp; the helpers they share in message_objects.hpp.
#include <signal.h>

#include <deque>
#include <regex>
#include <stdexcept>

#include <gtest/gtest.h>

#include "frame.hpp"
#include "message_objects.hpp"
#include "transport/message.hpp"

namespace ipclab {
namespace {

using namespace message_test;
using test::ChildResult;

// ---- the adapter, in process ----------------------------------------------------------------

class FakeChannel final : public MessageChannel {
 public:
  explicit FakeChannel(std::size_t m) : MessageChannel(m) {}
  void send(const std::uint8_t* p, std::size_t n) override {
    EXPECT_LE(n, max_message());
    queue.emplace_back(p, p + n);
  }
  std::size_t receive(std::uint8_t* dst) override {
    if (queue.empty()) throw std::runtime_error("no message");
    const auto msg = queue.front();
    queue.pop_front();
    std::copy(msg.begin(), msg.end(), dst);
    return msg.size();
  }
  std::deque<std::vector<std::uint8_t>> queue;
};

TEST(MessageStream, CutsFramesIntoMessagesOfExactlyMAndReassemblesThem) {
  for (std::size_t m : {24u, 25u, 100u, 8192u}) {
    for (std::size_t total : {24u, 25u, 47u, 48u, 49u, 200u, 8191u, 8192u, 8193u, 20000u}) {
      FakeChannel ch(m);
      MessageStream ms(ch);
      std::vector<std::uint8_t> frame(total);
      for (std::size_t i = 0; i < total; ++i) frame[i] = static_cast<std::uint8_t>(i * 7 + 1);
      ms.send_frame(frame.data(), total);
      ASSERT_EQ(ch.queue.size(), (total + m - 1) / m) << m << " " << total;
      for (std::size_t i = 0; i + 1 < ch.queue.size(); ++i) EXPECT_EQ(ch.queue[i].size(), m);
      EXPECT_EQ(ch.queue.back().size(), total - (ch.queue.size() - 1) * m);
      std::vector<std::uint8_t> got(total + m);
      std::size_t n = ms.receive_until(got.data(), 0, kHeaderSize);
      EXPECT_GE(n, kHeaderSize);
      n = ms.receive_until(got.data(), n, total);
      EXPECT_EQ(n, total);
      got.resize(n);
      EXPECT_EQ(got, frame);
      EXPECT_TRUE(ch.queue.empty());
    }
  }
}

// ---- every new mechanism --------------------------------------------------------------------

class NewMechanism : public ::testing::TestWithParam<std::string> {};

TEST_P(NewMechanism, RoundTripsEverySizeAndCleansUpOnStdinEof) {
  const std::string mech = GetParam();
  Served served(mech, {"--seed", "9"});
  ASSERT_TRUE(served.server.ready());
  const std::string ep = served.server.endpoint();
  EXPECT_EQ(served.server.ready_json()["mechanism"], mech);
  if (mech == "sysv-mq" || mech == "sysv-shm") {
    EXPECT_TRUE(std::regex_match(ep, std::regex("sysv:0x1c1a[0-9a-f]{4}"))) << ep;
    EXPECT_NE(ep, "sysv:0x1c1a0000");
  } else if (mech == "posix-mq" || is_posix_shm(mech)) {
    EXPECT_EQ(ep, "posix:/ipclab-" + std::to_string(served.server.pid()));
  } else {
    EXPECT_EQ(ep, served.dir.file("frames"));
  }
  const Objects before = objects_of(mech, ep);
  EXPECT_EQ(before.msg, mech == "sysv-mq");
  EXPECT_EQ(before.shm, mech == "sysv-shm");
  EXPECT_EQ(before.sem, mech == "sysv-shm");
  EXPECT_EQ(before.queues, mech == "posix-mq" ? 2 : 0);
  EXPECT_EQ(before.posix_shm, is_posix_shm(mech) ? 1 : 0);

  // One client after the other on the same objects, each a different size.
  const std::vector<std::uint32_t> sizes = {0, 16, 8191, 8192, 8193, 1 << 20, (1 << 20) + 1,
                                            16 << 20};
  for (std::uint32_t size : sizes) {
    const std::uint64_t iterations = size >= (16u << 20) ? 2 : 5;
    DriveRun run = drive(mech, ep, served.dir, size, size, iterations, [&] {
      auto extra = client_extra(mech);
      for (const char* s : {"--warmup", "1", "--seed", "9"}) extra.push_back(s);
      return extra;
    }());
    EXPECT_EQ(run.child.exit_code, 0) << size << ": " << run.child.err;
    EXPECT_EQ(run.child.err, "");
    EXPECT_EQ(run.result["status"], "ok");
    EXPECT_EQ(run.samples.size(), iterations);
    if (!is_message_mechanism(mech)) {
      EXPECT_TRUE(directory_empty(ep)) << "frames left after size " << size;
    }
  }
  // Asymmetric sizes around the message boundaries.
  for (auto [req, resp] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{
           {8168, 8169}, {0, 1048552}, {1048553, 0}}) {
    auto extra = client_extra(mech);
    extra.push_back("--seed");
    extra.push_back("9");
    DriveRun run = drive(mech, ep, served.dir, req, resp, 3, extra);
    EXPECT_EQ(run.child.exit_code, 0) << req << "/" << resp << ": " << run.child.err;
  }

  served.server.close_stdin();
  const ChildResult end = served.server.wait();
  EXPECT_EQ(end.exit_code, 0) << end.err;
  EXPECT_EQ(end.err, "");
  const Objects after = objects_of(mech, ep);
  EXPECT_EQ(after.total(), 0);
  if (!is_message_mechanism(mech)) {
    EXPECT_TRUE(directory_empty(ep));
  }
}

TEST_P(NewMechanism, FaultInjectionIsAPayloadMismatch) {
  const std::string mech = GetParam();
  Served served(mech, {"--fault", "flip-response-byte"});
  ASSERT_TRUE(served.server.ready());
  const DriveRun run = drive(mech, served.server.endpoint(), served.dir, 9000, 9000, 3, client_extra(mech));
  EXPECT_EQ(run.child.exit_code, 3) << run.child.err;
  EXPECT_NE(run.child.err.find("offset 8999"), std::string::npos) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "payload-mismatch");
}

TEST_P(NewMechanism, StoppedServerIsATimeout) {
  // The server is stopped (SIGSTOP): a request of 1 MiB + 1 makes the client wait in its sends
  // (queues and slots fill up) or, for files, in its receive. Every wait ends at --io-timeout.
  const std::string mech = GetParam();
  Served served(mech);
  ASSERT_TRUE(served.server.ready());
  Resume resume;
  for (std::uint32_t request : {16u, (1u << 20) + 1}) {
    served.server.signal(SIGSTOP);
    resume.pid = served.server.pid();
    auto extra = client_extra(mech);
    extra.push_back("--io-timeout");
    extra.push_back("0.3");
    const DriveRun run = drive(mech, served.server.endpoint(), served.dir, request, 16, 3, extra);
    EXPECT_EQ(run.child.exit_code, 6) << request << ": " << run.child.err;
    EXPECT_EQ(run.result["error_kind"], "timeout");
    EXPECT_NE(run.child.err.find("(sequence 0)"), std::string::npos) << run.child.err;
    served.server.signal(SIGCONT);
    resume.pid = -1;
    if (!is_message_mechanism(mech)) break;  // a file frame is written whole: no send wait
  }
}

INSTANTIATE_TEST_SUITE_P(Peer, NewMechanism,
                         ::testing::Values("sysv-mq", "posix-mq", "sysv-shm", "file",
                                           "file-poll", "shm", "shm-spin", "shm-futex"),
                         test::param_name);

}  // namespace
}  // namespace ipclab
