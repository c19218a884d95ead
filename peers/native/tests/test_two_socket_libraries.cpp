// What ZeroMQ (zmq-tcp, zmq-ipc: PROTOCOL.md 4.8) and NNG (nng-tcp, nng-ipc: 4.9) share, one
// suite over the four where each library is built in: READY's two sockets and the ipc socket
// files, rr up to the largest payload, a stream that counts every message, the faults, and the
// patterns they do not carry. What is each library's own (its rejections, `capabilities`) is in
// test_zmq.cpp and test_nng.cpp.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "message_library.hpp"
#include "support.hpp"

namespace ipclab {
namespace {

std::vector<std::string> built_in() {
  std::vector<std::string> mechs;
#ifdef IPCLAB_EXPECT_ZMQ
  mechs.insert(mechs.end(), {"zmq-tcp", "zmq-ipc"});
#endif
#ifdef IPCLAB_EXPECT_NNG
  mechs.insert(mechs.end(), {"nng-tcp", "nng-ipc"});
#endif
  return mechs;
}

class TwoSocketLibrary : public ::testing::TestWithParam<std::string> {
 protected:
  test::TempDir dir;
};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TwoSocketLibrary);  // neither library built in

bool is_ipc(const std::string& mech) { return mech.find("-ipc") != std::string::npos; }

TEST_P(TwoSocketLibrary, ReadyNamesBothTcpSockets) {
  if (is_ipc(GetParam())) GTEST_SKIP() << "the -ipc endpoint is a path (SocketFiles...)";
  test::Server server = test::two_socket_server(GetParam(), dir);
  ASSERT_TRUE(server.ready());
  const std::string e = server.endpoint();
  const auto comma = e.find(',');
  ASSERT_NE(comma, std::string::npos) << e;
  EXPECT_EQ(e.rfind("tcp://127.0.0.1:", 0), 0u) << e;
  EXPECT_EQ(e.find("tcp://127.0.0.1:", comma), comma + 1) << e;
  EXPECT_NE(e.substr(0, comma), e.substr(comma + 1));
  EXPECT_EQ(e.find(":0,"), std::string::npos) << e;  // the ports the library got, not 0
  EXPECT_EQ(server.ready_json()["mechanism"], GetParam());
}

TEST_P(TwoSocketLibrary, SocketFilesAreOwnersOnlyAndRemoved) {
  if (!is_ipc(GetParam())) GTEST_SKIP() << "a -tcp server has no socket files";
  {
    test::Server server = test::two_socket_server(GetParam(), dir);
    ASSERT_TRUE(server.ready());
    EXPECT_EQ(server.endpoint(), dir.file("s"));
    for (const std::string& path : {dir.file("s"), dir.file("s.stream")}) {
      struct stat st {};
      ASSERT_EQ(::lstat(path.c_str(), &st), 0) << path;
      EXPECT_TRUE(S_ISSOCK(st.st_mode)) << path;
      EXPECT_EQ(st.st_mode & 0777, 0600u) << path;
    }
    // A second server on the same path refuses to start.
    test::Server second = test::two_socket_server(GetParam(), dir);
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

TEST_P(TwoSocketLibrary, RoundTripsAndTheLargestPayload) {
  test::Server server = test::two_socket_server(GetParam(), dir);
  test::expect_round_trips_up_to_the_largest_payload(GetParam(), server, dir);
}

TEST_P(TwoSocketLibrary, StreamCountsEveryMessage) {
  test::Server server = test::two_socket_server(GetParam(), dir);
  test::expect_streams_count_every_message(GetParam(), server, dir);
}

TEST_P(TwoSocketLibrary, FaultsFailTheClient) {
  test::expect_faults_fail_the_client(
      GetParam(), [](const std::string& fault, const test::TempDir& d) {
        return test::two_socket_server(GetParam(), d, {"--fault", fault});
      });
}

TEST_P(TwoSocketLibrary, ShortAndLoadAreNotCarried) {
  const bool ipc = is_ipc(GetParam());
  test::expect_short_and_load_refused(
      GetParam(), ipc ? dir.file("s") : "tcp://127.0.0.1:1,tcp://127.0.0.1:2",
      ipc ? dir.file("s") : "127.0.0.1:0", dir);
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, TwoSocketLibrary, ::testing::ValuesIn(built_in()),
                         test::param_name);

}  // namespace
}  // namespace ipclab
