// nng-tcp and nng-ipc (PROTOCOL.md 4.9), what is NNG's own (READY's sockets, the ipc files, rr,
// streams, faults and what it does not carry are test_two_socket_libraries.cpp's, shared with
// ZeroMQ): a dial nobody answers, what a server rejects (a short message, a wrong length, a
// stream message of the wrong size or unannounced; it goes on serving), a message over the
// receive limit, an empty answer, and `capabilities`' library. A build without libnng must not
// list the mechanisms.
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

TEST(NngCapabilities, ListedWithTheLibraryExactlyWhereBuiltIn) {
#ifdef IPCLAB_EXPECT_NNG
  test::expect_listed_with_library({"nng-tcp", "nng-ipc"}, true, std::string("nng ") + nng_version());
#else
  test::expect_listed_with_library({"nng-tcp", "nng-ipc"}, false, "");
#endif
}

#ifdef IPCLAB_EXPECT_NNG

using test::DriveRun;
using test::Server;
using test::TempDir;

TEST(Nng, NoServerIsAnIoErrorAtOnce) {
  // The dial is synchronous: a refused connection fails the client, it does not wait.
  for (const std::string mech : {"nng-tcp", "nng-ipc"}) {
    SCOPED_TRACE(mech);
    TempDir dir;
    const DriveRun run = test::drive_bytes(
        mech, mech == "nng-ipc" ? dir.file("none") : "tcp://127.0.0.1:1,tcp://127.0.0.1:1", dir,
        16, 16, 1, {"--io-timeout", "30"});
    EXPECT_EQ(run.child.exit_code, 5) << run.child.err;
    EXPECT_EQ(run.result["error_kind"], "io");
  }
}

// This test's own sockets against an nng-tcp server.
class NngRaw {
 public:
  explicit NngRaw(const std::string& endpoint) {
    const auto comma = endpoint.find(',');
    req_ = open(nng_req0_open, endpoint.substr(0, comma));
    push_ = open(nng_push0_open, endpoint.substr(comma + 1));
    nng_socket_set_ms(req_, NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE);
  }
  ~NngRaw() {
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

TEST(NngTcp, RejectedFramesAreAnsweredEmptyAndTheServerGoesOn) {
  TempDir dir;
  Server server = test::two_socket_server("nng-tcp", dir);
  test::expect_rejections_answered_empty<NngRaw>("nng-tcp", server, dir);
}

TEST(NngTcp, ARequestOverTheReceiveLimitDropsOnlyItsConnection) {
  TempDir dir;
  Server server = test::two_socket_server("nng-tcp", dir);
  ASSERT_TRUE(server.ready());
  {
    // 24 + MAX_PAYLOAD + 1 bytes: the library closes the connection before allocating, so no
    // answer comes (REQ without resends: the receive fails as the connection goes).
    NngRaw raw(server.endpoint());
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
