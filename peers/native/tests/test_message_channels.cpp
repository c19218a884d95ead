// The message channels (sysv-mq, posix-mq, sysv-shm, and POSIX shared memory's shm, shm-spin,
// shm-futex) of PROTOCOL.md 4.1 and 4.3, ipclab-peer run as the orchestrator runs it: shutdown by
// signal or end of stdin removes every object, malformed frames sent as messages, objects removed
// under a client of a dead server (EIDRM), objects that are missing.
#include <signal.h>
#include <unistd.h>

#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "endpoint.hpp"
#include "frame.hpp"
#include "message_objects.hpp"
#include "transport/message.hpp"

namespace ipclab {
namespace {

using namespace message_test;
using test::ChildResult;

// ---- message channels: shutdown, malformed frames, removed objects --------------------------

class MessageMechanism : public ::testing::TestWithParam<std::string> {};

TEST_P(MessageMechanism, SignalsAndStdinEofRemoveEveryObject) {
  const std::string mech = GetParam();
  for (int how : {SIGTERM, SIGINT, 0}) {
    Served served(mech);
    ASSERT_TRUE(served.server.ready());
    const std::string ep = served.server.endpoint();
    const Objects before = objects_of(mech, ep);
    EXPECT_EQ(before.total(), mech == "sysv-mq" || is_posix_shm(mech) ? 1 : 2);
    const DriveRun run = drive(mech, ep, served.dir, 100, 100, 3);
    EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
    if (how != 0) {
      served.server.signal(how);
    } else {
      served.server.close_stdin();
    }
    const ChildResult end = served.server.wait();
    EXPECT_EQ(end.exit_code, 0) << how << ": " << end.err;
    const Objects after = objects_of(mech, ep);
    EXPECT_EQ(after.total(), 0) << how;
    const std::string tag = "ipclab-" + std::to_string(served.server.pid());
    EXPECT_FALSE(test::exists("/dev/shm/" + tag));
    EXPECT_FALSE(test::exists("/dev/mqueue/" + tag + "-1"));
    EXPECT_FALSE(test::exists("/dev/mqueue/" + tag + "-2"));
    EXPECT_FALSE(test::exists("/dev/shm/" + tag + "-shm"));
  }
}

std::unique_ptr<MessageChannel> open_client(const std::string& mech, const std::string& ep) {
  if (mech == "sysv-mq") return open_sysv_mq(parse_sysv_key(ep));
  if (mech == "posix-mq") return open_posix_mq(parse_posix_name(ep));
  const ShmWait wait = mech == "shm-spin"    ? ShmWait::spin
                       : mech == "shm-futex" ? ShmWait::futex
                                             : ShmWait::hybrid;
  if (is_posix_shm(mech)) return open_posix_shm(parse_posix_name(ep), wait, 50, 5'000'000'000);
  return open_sysv_shm(parse_sysv_key(ep), 5'000'000'000);
}

TEST_P(MessageMechanism, RejectsMalformedFramesAndServesTheNextClient) {
  const std::string mech = GetParam();
  Served served(mech);
  ASSERT_TRUE(served.server.ready());
  std::vector<std::string> reasons;
  {
    auto channel = open_client(mech, served.server.endpoint());
    MessageStream messages(*channel);
    for (const auto& m : test::vectors()["malformed"]) {
      const std::string reason = m["reason"];
      if (reason == "truncated header" || reason == "truncated payload") continue;  // streams only
      const auto bytes = test::from_hex(m["hex"].get<std::string>());
      messages.send_frame(bytes.data(), bytes.size());
      reasons.push_back(reason);
    }
    // A valid REQUEST header announcing 0 payload bytes, in a 30-byte message.
    std::vector<std::uint8_t> longer(30, 0);
    encode_header(longer.data(), FrameKind::request, 0, 0, 0);
    messages.send_frame(longer.data(), longer.size());
    reasons.push_back("length mismatch");
    // A valid END frame still gets its END_ACK after all that.
    std::uint8_t end[kHeaderSize];
    encode_header(end, FrameKind::end, 5, 0, 0);
    messages.send_frame(end, sizeof end);
    std::vector<std::uint8_t> ack(kEndAckSize + channel->max_message());
    ASSERT_EQ(messages.receive_until(ack.data(), 0, kEndAckSize), kEndAckSize);
    EXPECT_EQ(load_le64(ack.data() + kOffSequence), 5u);
    EXPECT_EQ(ack[kOffKind], static_cast<std::uint8_t>(FrameKind::end_ack));
  }
  const DriveRun run = drive(mech, served.server.endpoint(), served.dir, 10000, 10000, 5);
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  served.server.close_stdin();
  const ChildResult end = served.server.wait();
  EXPECT_EQ(end.exit_code, 0);
  std::string expected;
  for (const auto& r : reasons) expected += "ipclab-peer: rejected frame: " + r + "\n";
  EXPECT_EQ(end.err, expected);
}

INSTANTIATE_TEST_SUITE_P(Peer, MessageMechanism,
                         ::testing::Values("sysv-mq", "posix-mq", "sysv-shm", "shm",
                                           "shm-spin", "shm-futex"),
                         test::param_name);
class SysvDeadServer : public DeadServer {};

TEST_P(SysvDeadServer, RemovedObjectsAreAnIoError) {
  // The client blocks in msgrcv/semop until the orchestrator (here: the test) removes the
  // objects, then fails with EIDRM as an io error.
  DriveRun run;
  std::thread client([&] { run = drive(mech, ep, served.dir, 16, 16, 3, {"--io-timeout", "20"}); });
  ::usleep(400000);  // let the client block in its receive (test harness, not a peer)
  remove_objects(ep);
  client.join();
  EXPECT_EQ(run.child.exit_code, 5) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "io");
  EXPECT_NE(run.child.err.find("server's queue/semaphores were removed"), std::string::npos)
      << run.child.err;
}

INSTANTIATE_TEST_SUITE_P(Peer, SysvDeadServer, ::testing::Values("sysv-mq", "sysv-shm"),
                         test::param_name);

TEST(Peer, MissingMessageObjectsAreAnIoError) {
  TempDir dir;
  // Key 0x1c1a0000 is never drawn by a server (r != 0); the POSIX name has no server.
  DriveRun run = drive("sysv-mq", "sysv:0x1c1a0000", dir, 16, 16, 1);
  EXPECT_EQ(run.child.exit_code, 5) << run.child.err;
  run = drive("sysv-shm", "sysv:0x1c1a0000", dir, 16, 16, 1);
  EXPECT_EQ(run.child.exit_code, 5) << run.child.err;
  run = drive("posix-mq", "posix:/ipclab-nonexistent", dir, 16, 16, 1);
  EXPECT_EQ(run.child.exit_code, 5) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "io");
}

}  // namespace
}  // namespace ipclab
