// activemq (PROTOCOL.md 4.7): the C++ client against the C++ responder through one ActiveMQ
// broker per suite (the orchestrator's own launcher, ipclab.execute.broker), rr in both
// delivery modes at 16 B and 1 MiB, a flipped response byte, a malformed frame dropped (the
// responder goes on), a stream; and --delivery elsewhere. Skipped, with the reason, where
// Debian's activemq is missing; a build without Proton must not list the mechanism.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frame.hpp"
#include "support.hpp"
#ifdef IPCLAB_EXPECT_ACTIVEMQ
#include "broker/amqp_session.hpp"
#include "endpoint.hpp"
#endif

namespace ipclab {
namespace {

using test::ChildResult;
using test::DriveRun;
using test::Server;
using test::TempDir;

TEST(DeliveryFlag, UnsupportedForAnotherMechanism) {
  TempDir dir;
  const ChildResult serve = test::run_peer(
      {"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0", "--delivery", "persistent"});
  EXPECT_EQ(serve.exit_code, 7) << serve.err;
  const DriveRun drive = test::drive_bytes("tcp", "127.0.0.1:1", dir, 16, 16, 1,
                                           {"--delivery", "non-persistent"});
  EXPECT_EQ(drive.child.exit_code, 7) << drive.child.err;
  EXPECT_EQ(drive.result["error_kind"], "unsupported");
}

#ifdef IPCLAB_EXPECT_ACTIVEMQ

const char* const kActiveMqJar = "/usr/share/activemq/bin/activemq.jar";

// One broker for the suite: `python -m ipclab.execute.broker DIR` prints its amqp:// URL first
// and runs until SIGTERM, then removes DIR.
class ActiveMq : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (::access(kActiveMqJar, R_OK) != 0) return;
    dir_ = new TempDir;
    const std::string root = IPCLAB_VECTORS_DIR "/../..";
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::setenv("PYTHONPATH", (root + "/orchestrator/src").c_str(), 1);
      const std::string python = root + "/.venv/bin/python", where = dir_->file("b");
      ::execl(python.c_str(), python.c_str(), "-m", "ipclab.execute.broker", where.c_str(),
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(out[1]);
    std::string line;
    char c;
    pollfd p{out[0], POLLIN, 0};
    while (::poll(&p, 1, 60000) > 0 && ::read(out[0], &c, 1) == 1 && c != '\n') line += c;
    ::close(out[0]);
    if (line.rfind("amqp://", 0) == 0) url_ = line;
  }
  static void TearDownTestSuite() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);  // it stops the broker and removes its directory
    }
    delete dir_;
  }
  void SetUp() override {
    if (::access(kActiveMqJar, R_OK) != 0)
      GTEST_SKIP() << kActiveMqJar << " is missing (Debian's activemq, scripts/setup-system)";
    ASSERT_FALSE(url_.empty()) << "the broker did not start (ipclab.execute.broker)";
  }
  static Server responder(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"serve", "--mechanism", "activemq", "--endpoint", url_};
    args.insert(args.end(), extra.begin(), extra.end());
    return Server(args);
  }

  static inline std::string url_;
  static inline pid_t pid_ = -1;
  static inline TempDir* dir_ = nullptr;
  TempDir dir;
};

TEST_F(ActiveMq, ReadyNamesTheRequestQueue) {
  Server server = responder();
  ASSERT_TRUE(server.ready());
  EXPECT_EQ(server.endpoint(),
            url_ + "/ipclab." + std::to_string(server.pid()) + ".requests");
  EXPECT_EQ(server.ready_json()["mechanism"], "activemq");
}

TEST_F(ActiveMq, RoundTripsInBothDeliveryModes) {
  for (const char* delivery : {"non-persistent", "persistent"}) {
    for (const std::uint32_t size : {16u, 1u << 20}) {
      SCOPED_TRACE(std::string(delivery) + " " + std::to_string(size));
      Server server = responder({"--delivery", delivery});
      ASSERT_TRUE(server.ready());
      const std::uint64_t n = size == 16 ? 20 : 3;
      const DriveRun run = test::drive_bytes("activemq", server.endpoint(), dir, size, size, n,
                                             {"--warmup", "2", "--delivery", delivery});
      EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
      EXPECT_EQ(run.result["status"], "ok");
      EXPECT_EQ(run.samples.size(), n);
    }
  }
}

TEST_F(ActiveMq, FlippedResponseByteIsAPayloadMismatch) {
  Server server = responder({"--fault", "flip-response-byte"});
  ASSERT_TRUE(server.ready());
  const DriveRun run = test::drive_bytes("activemq", server.endpoint(), dir, 16, 16, 5);
  EXPECT_EQ(run.child.exit_code, 3) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "payload-mismatch");
  EXPECT_TRUE(run.samples.empty());
}

TEST_F(ActiveMq, MalformedFrameIsRejectedAndTheResponderGoesOn) {
  Server server = responder();
  ASSERT_TRUE(server.ready());
  {
    broker::AmqpLink link(parse_amqp(server.endpoint(), true), false, 10'000'000'000);
    std::uint8_t frame[kHeaderSize + 16];
    encode_header(frame, FrameKind::request, 0, 0, 16);
    frame[0] = 'X';  // bad magic: dropped, no answer
    link.send(frame, kHeaderSize);
    encode_header(frame, FrameKind::end, 1, 0, 0);
    link.send(frame, kHeaderSize);  // answered: the responder went on
    std::uint8_t reply[kEndAckSize];
    ASSERT_EQ(link.receive(reply, sizeof reply, kEndAckSize), kEndAckSize);
    const Header h = decode_header(reply);
    EXPECT_EQ(h.kind, static_cast<std::uint8_t>(FrameKind::end_ack));
    EXPECT_EQ(h.sequence, 1u);
  }
  server.close_stdin();
  const ChildResult r = server.wait(10000);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("ipclab-peer: rejected frame: bad magic"), std::string::npos) << r.err;
}

TEST_F(ActiveMq, Stream) {
  Server server = responder();
  ASSERT_TRUE(server.ready());
  const ChildResult r = test::run_peer(
      {"drive", "--pattern", "stream", "--mechanism", "activemq", "--endpoint", server.endpoint(),
       "--message-size", "1000", "--messages", "200", "--windows", "4", "--warmup", "10",
       "--samples-file", dir.file("samples.bin"), "--result-file", dir.file("result.json")},
      {}, 60000);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_samples(dir.file("samples.bin")).size(), 4u);
}

#else

TEST(ActiveMq, NotListedWithoutProton) {
  int code = -1;
  const std::string caps = test::peer_stdout({"capabilities"}, &code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(caps.find("\"activemq\""), std::string::npos);
}

#endif

}  // namespace
}  // namespace ipclab
