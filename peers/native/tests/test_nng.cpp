// nng-tcp and nng-ipc (PROTOCOL.md 4.9): READY's endpoints and the ipc socket files, rr at 16 B,
// 1 MiB and the largest payload, a stream, the faults, what a server rejects (a short message, a
// wrong length, a stream message of the wrong size or unannounced; it goes on serving), a
// message over the receive limit, the patterns it does not carry, and `capabilities`' library.
// A build without libnng must not list the mechanisms.
#include <algorithm>
#include <sstream>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "frame.hpp"
#include "message_library.hpp"
#include "support.hpp"
#ifdef IPCLAB_EXPECT_NNG
#include <nng/nng.h>
#include <nng/protocol/pipeline0/pull.h>
#include <nng/protocol/pipeline0/push.h>
#include <nng/protocol/reqrep0/rep.h>
#include <nng/protocol/reqrep0/req.h>
#endif

namespace ipclab {
namespace {

using test::DriveRun;
using test::Server;
using test::TempDir;

TEST(NngCapabilities, ListedWithTheLibraryExactlyWhereBuiltIn) {
#ifdef IPCLAB_EXPECT_NNG
  test::expect_listed_with_library({"nng-tcp", "nng-ipc"}, true, std::string("nng ") + nng_version());
#else
  test::expect_listed_with_library({"nng-tcp", "nng-ipc"}, false, "");
#endif
}

#ifdef IPCLAB_EXPECT_NNG

// A server of mech with its endpoint in dir (nng-ipc: the socket path dir/s).
Server nng_server(const std::string& mech, const TempDir& dir,
                  const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"serve", "--mechanism", mech, "--endpoint",
                                   mech == "nng-ipc" ? dir.file("s") : "127.0.0.1:0"};
  args.insert(args.end(), extra.begin(), extra.end());
  return Server(args);
}

class Nng : public ::testing::TestWithParam<std::string> {
 protected:
  TempDir dir;
};

TEST_P(Nng, RoundTripsAndTheLargestPayload) {
  Server server = nng_server(GetParam(), dir);
  test::expect_round_trips_up_to_the_largest_payload(GetParam(), server, dir);
}

TEST_P(Nng, StreamCountsEveryMessage) {
  Server server = nng_server(GetParam(), dir);
  test::expect_streams_count_every_message(GetParam(), server, dir);
}

TEST_P(Nng, FaultsFailTheClient) {
  test::expect_faults_fail_the_client(GetParam(), [](const std::string& fault, const TempDir& d) {
    return nng_server(GetParam(), d, {"--fault", fault});
  });
}

TEST_P(Nng, ShortAndLoadAreNotCarried) {
  const bool ipc = GetParam() == "nng-ipc";
  test::expect_short_and_load_refused(
      GetParam(), ipc ? dir.file("s") : "tcp://127.0.0.1:1,tcp://127.0.0.1:2",
      ipc ? dir.file("s") : "127.0.0.1:0", dir);
}

TEST_P(Nng, NoServerIsAnIoErrorAtOnce) {
  // The dial is synchronous: a refused connection fails the client, it does not wait.
  const DriveRun run = test::drive_bytes(GetParam(), GetParam() == "nng-ipc"
                                                         ? dir.file("none")
                                                         : "tcp://127.0.0.1:1,tcp://127.0.0.1:1",
                                         dir, 16, 16, 1, {"--io-timeout", "30"});
  EXPECT_EQ(run.child.exit_code, 5) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "io");
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, Nng, ::testing::Values("nng-tcp", "nng-ipc"),
                         test::param_name);

TEST(NngTcp, ReadyNamesBothSockets) {
  TempDir dir;
  Server server = nng_server("nng-tcp", dir);
  ASSERT_TRUE(server.ready());
  const std::string e = server.endpoint();
  const auto comma = e.find(',');
  ASSERT_NE(comma, std::string::npos) << e;
  EXPECT_EQ(e.rfind("tcp://127.0.0.1:", 0), 0u) << e;
  EXPECT_EQ(e.find("tcp://127.0.0.1:", comma), comma + 1) << e;
  EXPECT_NE(e.substr(0, comma), e.substr(comma + 1));
  EXPECT_EQ(e.find(":0,"), std::string::npos) << e;  // the ports the library got, not 0
  EXPECT_EQ(server.ready_json()["mechanism"], "nng-tcp");
}

TEST(NngIpc, SocketFilesAreOwnersOnlyAndRemoved) {
  TempDir dir;
  {
    Server server = nng_server("nng-ipc", dir);
    ASSERT_TRUE(server.ready());
    EXPECT_EQ(server.endpoint(), dir.file("s"));
    for (const std::string& path : {dir.file("s"), dir.file("s.stream")}) {
      struct stat st {};
      ASSERT_EQ(::lstat(path.c_str(), &st), 0) << path;
      EXPECT_TRUE(S_ISSOCK(st.st_mode)) << path;
      EXPECT_EQ(st.st_mode & 0777, 0600u) << path;
    }
    // A second server on the same path refuses to start.
    Server second = nng_server("nng-ipc", dir);
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

// This test's own sockets against an nng-tcp server.
class Raw {
 public:
  explicit Raw(const std::string& endpoint) {
    const auto comma = endpoint.find(',');
    req_ = open(nng_req0_open, endpoint.substr(0, comma));
    push_ = open(nng_push0_open, endpoint.substr(comma + 1));
    nng_socket_set_ms(req_, NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE);
  }
  ~Raw() {
    nng_close(req_);
    nng_close(push_);
  }
  // Sends bytes on the REQ socket and returns the answer (empty: none came or it was empty).
  std::vector<std::uint8_t> ask(const std::vector<std::uint8_t>& bytes) {
    EXPECT_EQ(nng_send(req_, const_cast<std::uint8_t*>(bytes.data()), bytes.size(), 0), 0);
    nng_msg* msg = nullptr;
    const int rv = nng_recvmsg(req_, &msg, 0);
    EXPECT_EQ(rv, 0) << nng_strerror(rv);
    if (rv != 0) return {};
    const auto* body = static_cast<const std::uint8_t*>(nng_msg_body(msg));
    std::vector<std::uint8_t> answer(body, body + nng_msg_len(msg));
    nng_msg_free(msg);
    return answer;
  }
  // Like ask, but the raw result code of the receive.
  int ask_code(const std::vector<std::uint8_t>& bytes) {
    EXPECT_EQ(nng_send(req_, const_cast<std::uint8_t*>(bytes.data()), bytes.size(), 0), 0);
    nng_msg* msg = nullptr;
    const int rv = nng_recvmsg(req_, &msg, 0);
    if (rv == 0) nng_msg_free(msg);
    return rv;
  }
  void push(std::size_t n) {
    std::vector<std::uint8_t> bytes(n, 0x5a);
    EXPECT_EQ(nng_send(push_, bytes.data(), n, 0), 0);
  }

 private:
  static nng_socket open(int (*opener)(nng_socket*), const std::string& url) {
    nng_socket s = NNG_SOCKET_INITIALIZER;
    EXPECT_EQ(opener(&s), 0);
    nng_socket_set_ms(s, NNG_OPT_RECVTIMEO, 5000);
    nng_socket_set_ms(s, NNG_OPT_SENDTIMEO, 5000);
    EXPECT_EQ(nng_dial(s, url.c_str(), nullptr, 0), 0) << url;
    return s;
  }
  nng_socket req_ = NNG_SOCKET_INITIALIZER;
  nng_socket push_ = NNG_SOCKET_INITIALIZER;
};

std::vector<std::uint8_t> frame(FrameKind kind, std::uint64_t seq, std::uint32_t length,
                                std::size_t payload_bytes) {
  std::vector<std::uint8_t> f(kHeaderSize + payload_bytes);
  encode_header(f.data(), kind, seq, length, 0);
  return f;
}

TEST(NngTcp, RejectedFramesAreAnsweredEmptyAndTheServerGoesOn) {
  TempDir dir;
  Server server = nng_server("nng-tcp", dir);
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
  EXPECT_EQ(test::drive_bytes("nng-tcp", server.endpoint(), dir, 16, 16, 5).child.exit_code, 0);
  server.close_stdin();
  const test::ChildResult stopped = server.wait();
  // Each rejection is said once. The three requests' come in order (one socket, each answered
  // before the next); the two stream messages' travel on the PULL socket beside the MARK on the
  // REP one, and the server may take them in either order, so those two are compared as a set.
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

TEST(NngTcp, ARequestOverTheReceiveLimitDropsOnlyItsConnection) {
  TempDir dir;
  Server server = nng_server("nng-tcp", dir);
  ASSERT_TRUE(server.ready());
  {
    // 24 + MAX_PAYLOAD + 1 bytes: the library closes the connection before allocating, so no
    // answer comes (REQ without resends: the receive fails as the connection goes).
    Raw raw(server.endpoint());
    std::vector<std::uint8_t> huge(kHeaderSize + kMaxPayload + 1);
    EXPECT_NE(raw.ask_code(huge), 0);
  }
  EXPECT_EQ(test::drive_bytes("nng-tcp", server.endpoint(), dir, 16, 16, 5).child.exit_code, 0);
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

TEST(NngTcp, AnEmptyAnswerIsAProtocolErrorOfTheClient) {
  // A REP of this test that answers every request with an empty message, as a server does a
  // rejected frame.
  nng_socket rep = NNG_SOCKET_INITIALIZER, pull = NNG_SOCKET_INITIALIZER;
  ASSERT_EQ(nng_rep0_open(&rep), 0);
  ASSERT_EQ(nng_pull0_open(&pull), 0);
  nng_listener lr, lp;
  ASSERT_EQ(nng_listen(rep, "tcp://127.0.0.1:0", &lr, 0), 0);
  ASSERT_EQ(nng_listen(pull, "tcp://127.0.0.1:0", &lp, 0), 0);
  int pr = 0, pp = 0;
  nng_listener_get_int(lr, NNG_OPT_TCP_BOUND_PORT, &pr);
  nng_listener_get_int(lp, NNG_OPT_TCP_BOUND_PORT, &pp);
  nng_socket_set_ms(rep, NNG_OPT_RECVTIMEO, 10000);
  std::thread answer([rep] {
    nng_msg* msg = nullptr;
    if (nng_recvmsg(rep, &msg, 0) == 0) {
      nng_msg_free(msg);
      nng_send(rep, const_cast<char*>(""), 0, 0);
    }
  });
  TempDir dir;
  const DriveRun run = test::drive_bytes(
      "nng-tcp",
      "tcp://127.0.0.1:" + std::to_string(pr) + ",tcp://127.0.0.1:" + std::to_string(pp), dir,
      16, 16, 1, {"--io-timeout", "5"});
  answer.join();
  EXPECT_EQ(run.child.exit_code, 4) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "protocol");
  nng_close(rep);
  nng_close(pull);
}

#endif  // IPCLAB_EXPECT_NNG

}  // namespace
}  // namespace ipclab
