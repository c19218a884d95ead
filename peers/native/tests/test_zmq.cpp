// zmq-tcp and zmq-ipc (PROTOCOL.md 4.8), what is ZeroMQ's own (READY's sockets, the ipc files,
// rr, streams, faults and what it does not carry are test_two_socket_libraries.cpp's, shared
// with NNG): what a server rejects (a short message, a wrong length, a stream message of the
// wrong size or unannounced; it goes on serving), an empty answer, and `capabilities`' library.
// A build without libzmq must not list the mechanisms.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frame.hpp"
#include "message_library.hpp"
#include "support.hpp"
#ifdef IPCLAB_EXPECT_ZMQ
#include <zmq.h>
#endif

namespace ipclab {
namespace {

TEST(ZmqCapabilities, ListedWithTheLibraryExactlyWhereBuiltIn) {
#ifdef IPCLAB_EXPECT_ZMQ
  int major = 0, minor = 0, patch = 0;
  zmq_version(&major, &minor, &patch);
  test::expect_listed_with_library({"zmq-tcp", "zmq-ipc"}, true,
                                   "libzmq " + std::to_string(major) + "." +
                                       std::to_string(minor) + "." + std::to_string(patch));
#else
  test::expect_listed_with_library({"zmq-tcp", "zmq-ipc"}, false, "");
#endif
}

#ifdef IPCLAB_EXPECT_ZMQ

using test::DriveRun;
using test::Server;
using test::TempDir;

// This test's own sockets against a zmq-tcp server.
class ZmqRaw {
 public:
  explicit ZmqRaw(const std::string& endpoint) : ctx_(zmq_ctx_new()) {
    const auto comma = endpoint.find(',');
    req_ = open(ZMQ_REQ, endpoint.substr(0, comma));
    push_ = open(ZMQ_PUSH, endpoint.substr(comma + 1));
  }
  ~ZmqRaw() {
    zmq_close(req_);
    zmq_close(push_);
    zmq_ctx_term(ctx_);
  }
  // Sends bytes on the REQ socket and returns the answer.
  std::vector<std::uint8_t> ask(const std::vector<std::uint8_t>& bytes) {
    EXPECT_EQ(zmq_send(req_, bytes.data(), bytes.size(), 0), static_cast<int>(bytes.size()));
    std::vector<std::uint8_t> answer(256);
    const int n = zmq_recv(req_, answer.data(), answer.size(), 0);
    EXPECT_GE(n, 0) << zmq_strerror(zmq_errno());
    answer.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
    return answer;
  }
  void push(std::size_t n) {
    const std::vector<std::uint8_t> bytes(n, 0x5a);
    EXPECT_EQ(zmq_send(push_, bytes.data(), n, 0), static_cast<int>(n));
  }

 private:
  void* open(int type, const std::string& address) {
    void* s = zmq_socket(ctx_, type);
    const int linger = 0, timeout = 5000;
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(s, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    EXPECT_EQ(zmq_connect(s, address.c_str()), 0);
    return s;
  }
  void* ctx_;
  void* req_;
  void* push_;
};

TEST(ZmqTcp, RejectedFramesAreAnsweredEmptyAndTheServerGoesOn) {
  TempDir dir;
  Server server = test::two_socket_server("zmq-tcp", dir);
  test::expect_rejections_answered_empty<ZmqRaw>("zmq-tcp", server, dir);
}

TEST(ZmqTcp, AnEmptyAnswerIsAProtocolErrorOfTheClient) {
  // A REP of this test that answers every request with an empty message, as a server does a
  // rejected frame.
  void* ctx = zmq_ctx_new();
  void* rep = zmq_socket(ctx, ZMQ_REP);
  void* pull = zmq_socket(ctx, ZMQ_PULL);
  ASSERT_EQ(zmq_bind(rep, "tcp://127.0.0.1:*"), 0);
  ASSERT_EQ(zmq_bind(pull, "tcp://127.0.0.1:*"), 0);
  char a[128], b[128];
  std::size_t la = sizeof a, lb = sizeof b;
  zmq_getsockopt(rep, ZMQ_LAST_ENDPOINT, a, &la);
  zmq_getsockopt(pull, ZMQ_LAST_ENDPOINT, b, &lb);
  std::thread answer([rep] {
    char buf[64];
    if (zmq_recv(rep, buf, sizeof buf, 0) >= 0) zmq_send(rep, "", 0, 0);
  });
  TempDir dir;
  const DriveRun run =
      test::drive_bytes("zmq-tcp", std::string(a) + "," + b, dir, 16, 16, 1, {"--io-timeout", "5"});
  answer.join();
  EXPECT_EQ(run.child.exit_code, 4) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "protocol");
  const int linger = 0;
  zmq_setsockopt(rep, ZMQ_LINGER, &linger, sizeof linger);
  zmq_setsockopt(pull, ZMQ_LINGER, &linger, sizeof linger);
  zmq_close(rep);
  zmq_close(pull);
  zmq_ctx_term(ctx);
}

#endif  // IPCLAB_EXPECT_ZMQ

}  // namespace
}  // namespace ipclab
