// nats (PROTOCOL.md 4.11): the C++ client against the C++ responder through one NATS server for
// the suite (the orchestrator's own launcher, ipclab.execute.nats_server): READY's endpoint and
// server version, rr at 0 B, 16 B, 1 MiB and the largest payload NATS carries (and one byte more
// refused), streams past the credit window, the faults, what a responder rejects (an empty
// answer; it goes on), a request nobody answers, a lost server, the patterns it does not carry,
// and `capabilities`' library. Skipped, with the reason, where nats-server is missing; a build
// without libnats must not list the mechanism.
#include <unistd.h>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "frame.hpp"
#include "message_library.hpp"
#include "support.hpp"
#ifdef IPCLAB_EXPECT_NATS
#include <nats/nats.h>
#endif

namespace ipclab {
namespace {

using test::ChildResult;
using test::DriveRun;
using test::Launched;
using test::Server;
using test::TempDir;

TEST(NatsCapabilities, ListedWithTheLibraryExactlyWhereBuiltIn) {
#ifdef IPCLAB_EXPECT_NATS
  test::expect_listed_with_library({"nats"}, true, std::string("nats.c ") + nats_GetVersion());
#else
  test::expect_listed_with_library({"nats"}, false, "");
#endif
}

#ifdef IPCLAB_EXPECT_NATS

const char* const kNatsServer = "/usr/sbin/nats-server";  // Debian puts it in sbin
constexpr std::uint32_t kLargest = (64u << 20) - kHeaderSize;  // the server's max_payload

// The endpoint of a server (nats://HOST:PORT/ipclab:test) with the subject name `name`.
std::string with_subject(const std::string& endpoint, const std::string& name) {
  return endpoint.substr(0, endpoint.rfind('/') + 1) + name;
}

class Nats : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (::access(kNatsServer, X_OK) != 0) return;
    dir_ = new TempDir;
    server_ = test::launch_server("ipclab.execute.nats_server", {dir_->file("n")});
  }
  static void TearDownTestSuite() {
    stop(server_);
    delete dir_;
  }
  void SetUp() override {
    if (::access(kNatsServer, X_OK) != 0)
      GTEST_SKIP() << kNatsServer << " is missing (Debian's nats-server, scripts/setup-system)";
    ASSERT_FALSE(server_.endpoint.empty()) << "the NATS server did not start";
  }
  // A name of this test's own, so no test meets another's subjects.
  static std::string endpoint(const std::string& name) { return with_subject(server_.endpoint, name); }
  static Server responder(const std::string& name, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"serve", "--mechanism", "nats", "--endpoint",
                                     endpoint(name)};
    args.insert(args.end(), extra.begin(), extra.end());
    return Server(args);
  }
  static inline Launched server_;
  static inline TempDir* dir_ = nullptr;
  TempDir dir;
};

TEST_F(Nats, ReadyNamesTheEndpointAndTheServersVersion) {
  Server server = responder("t:ready");
  test::expect_ready_names_the_server(server, "nats", endpoint("t:ready"), "NATS 2.");
}

TEST_F(Nats, RoundTripsUpToTheLargestPayloadAndRefusesOneByteMore) {
  Server server = responder("t:rr");
  test::expect_round_trips_up_to_the_largest_payload("nats", server, dir, kLargest);
}

// 1 B and 1000 B: windows of 1000 messages; 4 MiB: a window of 16, a credit per 8.
TEST_F(Nats, StreamsPastTheCreditWindowCountEveryMessage) {
  Server server = responder("t:stream");
  test::expect_streams_count_every_message("nats", server, dir);
}

TEST_F(Nats, FaultsFailTheClient) {
  test::expect_faults_fail_the_client("nats", [](const std::string& fault, const TempDir&) {
    return responder("t:fault:" + fault, {"--fault", fault});
  });
}

TEST_F(Nats, ShortLoadAndBadEndpointsAreRefused) {
  test::expect_short_and_load_refused("nats", endpoint("t:short"), endpoint("t:load"), dir);
  for (const char* bad : {"127.0.0.1:4222", "nats://127.0.0.1:4222", "nats://127.0.0.1:0/n",
                          "nats://127.0.0.1:4222/a.b", "nats://127.0.0.1:4222/a b"}) {
    const ChildResult r = test::run_peer({"serve", "--mechanism", "nats", "--endpoint", bad});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
  }
}

// This test's own connection to the suite's server, with an inbox for answers.
class NatsRaw {
 public:
  explicit NatsRaw(const std::string& endpoint)
      : name_(endpoint.substr(endpoint.rfind('/') + 1)),
        url_(endpoint.substr(0, endpoint.rfind('/'))) {
    if (natsConnection_ConnectTo(&nc_, url_.c_str()) != NATS_OK) return;
    natsInbox* inbox = nullptr;
    natsInbox_Create(&inbox);
    inbox_ = inbox;
    natsInbox_Destroy(inbox);
    natsConnection_SubscribeSync(&sub_, nc_, inbox_.c_str());
    natsConnection_Flush(nc_);
  }
  ~NatsRaw() {
    natsSubscription_Destroy(sub_);
    natsConnection_Destroy(nc_);
  }
  bool ok() const { return sub_ != nullptr; }
  // The link of message_library.hpp's rejections: bytes published to NAME.requests as a frame
  // (the inbox its reply subject), and its answer (none within 5 s fails the test); n bytes as a
  // stream message, with no reply subject.
  std::vector<std::uint8_t> ask(const std::vector<std::uint8_t>& bytes) {
    natsConnection_PublishRequest(nc_, (name_ + ".requests").c_str(), inbox_.c_str(),
                                  bytes.data(), static_cast<int>(bytes.size()));
    std::optional<std::vector<std::uint8_t>> got = answer();
    EXPECT_TRUE(got.has_value()) << "no answer on the inbox within 5 s";
    return got.value_or(std::vector<std::uint8_t>());
  }
  void push(std::size_t n) { publish_message(std::vector<std::uint8_t>(n, 0x5a)); }
  void publish_message(const std::vector<std::uint8_t>& bytes) {  // no reply subject
    natsConnection_Publish(nc_, (name_ + ".requests").c_str(), bytes.data(),
                           static_cast<int>(bytes.size()));
  }
  // The next answer on the inbox (nullopt: none within 5 s).
  std::optional<std::vector<std::uint8_t>> answer() {
    natsMsg* m = nullptr;
    if (natsSubscription_NextMsg(&m, sub_, 5000) != NATS_OK) return std::nullopt;
    const auto* p = reinterpret_cast<const std::uint8_t*>(natsMsg_GetData(m));
    std::vector<std::uint8_t> out(p, p + natsMsg_GetDataLength(m));
    natsMsg_Destroy(m);
    return out;
  }
  natsConnection* handle() const { return nc_; }
  const std::string& name() const { return name_; }

 private:
  std::string name_, url_, inbox_;
  natsConnection* nc_ = nullptr;
  natsSubscription* sub_ = nullptr;
};

TEST_F(Nats, RejectedFramesAreAnsweredEmptyAndTheResponderGoesOn) {
  Server server = responder("t:reject");
  ASSERT_TRUE(server.ready());
  NatsRaw raw(endpoint("t:reject"));
  ASSERT_TRUE(raw.ok());
  test::expect_rejected_frames_answered_empty(raw, false);
  // A frame with no reply subject: nowhere to answer, said on stderr.
  raw.publish_message(test::frame(FrameKind::request, 0, 0, 0));
  // The responder goes on.
  EXPECT_EQ(test::drive_bytes("nats", server.endpoint(), dir, 16, 16, 5).child.exit_code, 0);
  server.close_stdin();
  test::expect_rejections_said_in_order(server.wait(), {"no reply-to"});
}

TEST_F(Nats, AnEmptyAnswerIsAProtocolErrorAndNoResponderAnIoError) {
  // A responder of this test's own that answers the first request with an empty message.
  NatsRaw raw(endpoint("t:empty"));
  ASSERT_TRUE(raw.ok());
  natsSubscription* requests = nullptr;
  ASSERT_EQ(natsConnection_SubscribeSync(&requests, raw.handle(), "t:empty.requests"), NATS_OK);
  natsConnection_Flush(raw.handle());
  std::thread answer([&] {
    natsMsg* m = nullptr;
    if (natsSubscription_NextMsg(&m, requests, 10000) != NATS_OK) return;
    natsConnection_Publish(raw.handle(), natsMsg_GetReply(m), nullptr, 0);
    natsMsg_Destroy(m);
  });
  const DriveRun empty = test::drive_bytes("nats", endpoint("t:empty"), dir, 16, 16, 1);
  answer.join();
  natsSubscription_Destroy(requests);
  EXPECT_EQ(empty.child.exit_code, 4) << empty.child.err;
  EXPECT_EQ(empty.result["error_kind"], "protocol");
  // Nobody subscribed: the server answers "no responders" at once.
  const DriveRun none =
      test::drive_bytes("nats", endpoint("t:none"), dir, 16, 16, 1, {"--io-timeout", "5"});
  EXPECT_EQ(none.child.exit_code, 5) << none.child.err;
  EXPECT_EQ(none.result["error_kind"], "io");
  EXPECT_NE(none.child.err.find("no responder"), std::string::npos) << none.child.err;
}

TEST(NatsLost, AResponderWhoseServerDiesExitsWithAnIoError) {
  if (::access(kNatsServer, X_OK) != 0) GTEST_SKIP() << kNatsServer << " is missing";
  TempDir dir;
  Launched l = test::launch_server("ipclab.execute.nats_server", {dir.file("n")});
  test::expect_a_lost_server_ends_the_responder("nats", l, with_subject(l.endpoint, "t"),
                                                "a message on t.requests");
}

#endif  // IPCLAB_EXPECT_NATS

}  // namespace
}  // namespace ipclab
