// zmq-tcp and zmq-ipc (PROTOCOL.md 4.8): READY's endpoints and the ipc socket files, rr at 16 B,
// 1 MiB and the largest payload, a stream, the faults, what a server rejects (a short message, a
// wrong length, a stream message of the wrong size or unannounced; it goes on serving), the
// patterns it does not carry, and `capabilities`' library. A build without libzmq must not
// list the mechanisms.
#include <algorithm>
#include <sstream>
#include <sys/stat.h>

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

using test::DriveRun;
using test::Server;
using test::TempDir;

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

// A server of mech with its endpoint in dir (zmq-ipc: the socket path dir/s).
Server zmq_server(const std::string& mech, const TempDir& dir,
                  const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"serve", "--mechanism", mech, "--endpoint",
                                   mech == "zmq-ipc" ? dir.file("s") : "127.0.0.1:0"};
  args.insert(args.end(), extra.begin(), extra.end());
  return Server(args);
}

class Zmq : public ::testing::TestWithParam<std::string> {
 protected:
  TempDir dir;
};

TEST_P(Zmq, RoundTripsAndTheLargestPayload) {
  Server server = zmq_server(GetParam(), dir);
  test::expect_round_trips_up_to_the_largest_payload(GetParam(), server, dir);
}

TEST_P(Zmq, StreamCountsEveryMessage) {
  Server server = zmq_server(GetParam(), dir);
  test::expect_streams_count_every_message(GetParam(), server, dir);
}

TEST_P(Zmq, FaultsFailTheClient) {
  test::expect_faults_fail_the_client(GetParam(), [](const std::string& fault, const TempDir& d) {
    return zmq_server(GetParam(), d, {"--fault", fault});
  });
}

TEST_P(Zmq, ShortAndLoadAreNotCarried) {
  const bool ipc = GetParam() == "zmq-ipc";
  test::expect_short_and_load_refused(
      GetParam(), ipc ? dir.file("s") : "tcp://127.0.0.1:1,tcp://127.0.0.1:2",
      ipc ? dir.file("s") : "127.0.0.1:0", dir);
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, Zmq, ::testing::Values("zmq-tcp", "zmq-ipc"),
                         test::param_name);

TEST(ZmqTcp, ReadyNamesBothSockets) {
  TempDir dir;
  Server server = zmq_server("zmq-tcp", dir);
  ASSERT_TRUE(server.ready());
  const std::string e = server.endpoint();
  const auto comma = e.find(',');
  ASSERT_NE(comma, std::string::npos) << e;
  EXPECT_EQ(e.rfind("tcp://127.0.0.1:", 0), 0u) << e;
  EXPECT_EQ(e.find("tcp://127.0.0.1:", comma), comma + 1) << e;
  EXPECT_NE(e.substr(0, comma), e.substr(comma + 1));
  EXPECT_EQ(server.ready_json()["mechanism"], "zmq-tcp");
}

TEST(ZmqIpc, SocketFilesAreOwnersOnlyAndRemoved) {
  TempDir dir;
  {
    Server server = zmq_server("zmq-ipc", dir);
    ASSERT_TRUE(server.ready());
    EXPECT_EQ(server.endpoint(), dir.file("s"));
    for (const std::string& path : {dir.file("s"), dir.file("s.stream")}) {
      struct stat st {};
      ASSERT_EQ(::lstat(path.c_str(), &st), 0) << path;
      EXPECT_TRUE(S_ISSOCK(st.st_mode)) << path;
      EXPECT_EQ(st.st_mode & 0777, 0600u) << path;
    }
    // A second server on the same path refuses to start.
    Server second = zmq_server("zmq-ipc", dir);
    EXPECT_FALSE(second.ready());
    const test::ChildResult refused = second.wait();
    EXPECT_EQ(refused.exit_code, 5) << refused.err;
    EXPECT_NE(refused.err.find("path exists"), std::string::npos) << refused.err;
    server.close_stdin();
    EXPECT_EQ(server.wait().exit_code, 0);
  }
  EXPECT_FALSE(test::exists(dir.file("s")));
  EXPECT_FALSE(test::exists(dir.file("s.stream")));
}

// This test's own sockets against a zmq-tcp server.
class Raw {
 public:
  explicit Raw(const std::string& endpoint) : ctx_(zmq_ctx_new()) {
    const auto comma = endpoint.find(',');
    req_ = open(ZMQ_REQ, endpoint.substr(0, comma));
    push_ = open(ZMQ_PUSH, endpoint.substr(comma + 1));
  }
  ~Raw() {
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

std::vector<std::uint8_t> frame(FrameKind kind, std::uint64_t seq, std::uint32_t length,
                                std::size_t payload_bytes) {
  std::vector<std::uint8_t> f(kHeaderSize + payload_bytes);
  encode_header(f.data(), kind, seq, length, 0);
  return f;
}

TEST(ZmqTcp, RejectedFramesAreAnsweredEmptyAndTheServerGoesOn) {
  TempDir dir;
  Server server = zmq_server("zmq-tcp", dir);
  ASSERT_TRUE(server.ready());
  {
    Raw raw(server.endpoint());
    EXPECT_TRUE(raw.ask(std::vector<std::uint8_t>(10, 0)).empty());  // truncated header
    EXPECT_TRUE(raw.ask(frame(FrameKind::request, 0, 100, 10)).empty());  // length mismatch
    std::vector<std::uint8_t> bad_magic = frame(FrameKind::request, 0, 0, 0);
    bad_magic[0] = 'X';
    EXPECT_TRUE(raw.ask(bad_magic).empty());
    // A stream message nobody announced, then one of the wrong size where one is due: the rest
    // of the MARK's count is given up, and END's answer shows no message came.
    raw.push(16);
    std::vector<std::uint8_t> mark = frame(FrameKind::mark, 0, kMarkPayload, kMarkPayload);
    encode_mark(mark.data() + kHeaderSize, 32, 2);
    EXPECT_EQ(raw.ask(mark).size(), kHeaderSize);
    raw.push(31);
    const std::vector<std::uint8_t> ack = raw.ask(frame(FrameKind::end, 3, 0, 0));
    ASSERT_EQ(ack.size(), kStreamAckSize);
    EXPECT_EQ(load_le64(ack.data() + kHeaderSize), 0u);  // received
  }
  // The server goes on: a client's round trips pass, and it stops cleanly with the reasons said.
  EXPECT_EQ(test::drive_bytes("zmq-tcp", server.endpoint(), dir, 16, 16, 5).child.exit_code, 0);
  server.close_stdin();
  const test::ChildResult stopped = server.wait();
  // Each rejection is said once. The three requests' come in order (one socket, each answered
  // before the next); the two stream messages' travel on the PULL socket beside the MARK on the
  // REP one, and under load the server may take them in either order, so those two are
  // compared as a set.
  std::vector<std::string> said;
  std::istringstream lines(stopped.err);
  for (std::string line; std::getline(lines, line);) said.push_back(line);
  const std::string prefix = "ipclab-peer: rejected frame: ";
  ASSERT_EQ(said.size(), 5u) << stopped.err;
  EXPECT_EQ(std::vector<std::string>(said.begin(), said.begin() + 3),
            (std::vector<std::string>{prefix + "truncated header", prefix + "length mismatch",
                                      prefix + "bad magic"}));
  std::vector<std::string> stream(said.begin() + 3, said.end());
  std::sort(stream.begin(), stream.end());
  EXPECT_EQ(stream, (std::vector<std::string>{prefix + "length mismatch",
                                              prefix + "unexpected message"}));
  EXPECT_EQ(stopped.exit_code, 0);
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
