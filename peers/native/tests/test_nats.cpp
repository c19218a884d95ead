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
std::string with_name(const std::string& endpoint, const std::string& name) {
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
  static std::string endpoint(const std::string& name) { return with_name(server_.endpoint, name); }
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
  ASSERT_TRUE(server.ready());
  EXPECT_EQ(server.endpoint(), endpoint("t:ready"));
  EXPECT_EQ(server.ready_json()["mechanism"], "nats");
  const std::string broker = server.ready_json()["broker"];
  EXPECT_EQ(broker.rfind("NATS 2.", 0), 0u) << broker;
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
class Raw {
 public:
  explicit Raw(const std::string& endpoint)
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
  ~Raw() {
    natsSubscription_Destroy(sub_);
    natsConnection_Destroy(nc_);
  }
  bool ok() const { return sub_ != nullptr; }
  void publish(const std::vector<std::uint8_t>& bytes) {
    natsConnection_PublishRequest(nc_, (name_ + ".requests").c_str(), inbox_.c_str(),
                                  bytes.data(), static_cast<int>(bytes.size()));
  }
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

std::vector<std::uint8_t> frame(FrameKind kind, std::uint64_t seq, std::uint32_t length,
                                std::size_t payload_bytes) {
  std::vector<std::uint8_t> f(kHeaderSize + payload_bytes);
  encode_header(f.data(), kind, seq, length, 0);
  return f;
}

TEST_F(Nats, RejectedFramesAreAnsweredEmptyAndTheResponderGoesOn) {
  Server server = responder("t:reject");
  ASSERT_TRUE(server.ready());
  Raw raw(endpoint("t:reject"));
  ASSERT_TRUE(raw.ok());
  raw.publish(std::vector<std::uint8_t>(10, 0));          // truncated header
  EXPECT_EQ(raw.answer(), std::vector<std::uint8_t>());
  raw.publish(frame(FrameKind::request, 0, 100, 10));      // length mismatch
  EXPECT_EQ(raw.answer(), std::vector<std::uint8_t>());
  std::vector<std::uint8_t> bad_magic = frame(FrameKind::request, 0, 0, 0);
  bad_magic[0] = 'X';
  raw.publish(bad_magic);
  EXPECT_EQ(raw.answer(), std::vector<std::uint8_t>());
  // A stream message of the wrong size where one is due: the rest of the count is given up,
  // and END's answer shows no message came.
  std::vector<std::uint8_t> mark = frame(FrameKind::mark, 0, kMarkPayload, kMarkPayload);
  encode_mark(mark.data() + kHeaderSize, 32, 2);
  raw.publish(mark);
  EXPECT_EQ(raw.answer().value_or(std::vector<std::uint8_t>()).size(), kHeaderSize);
  raw.publish_message(std::vector<std::uint8_t>(31, 0x5a));
  raw.publish(frame(FrameKind::end, 3, 0, 0));
  const auto ack = raw.answer();
  ASSERT_TRUE(ack.has_value());
  ASSERT_EQ(ack->size(), kStreamAckSize);
  EXPECT_EQ(load_le64(ack->data() + kHeaderSize), 0u);  // received
  // A frame with no reply subject: nowhere to answer, said on stderr.
  raw.publish_message(frame(FrameKind::request, 0, 0, 0));
  // The responder goes on.
  EXPECT_EQ(test::drive_bytes("nats", server.endpoint(), dir, 16, 16, 5).child.exit_code, 0);
  server.close_stdin();
  const ChildResult stopped = server.wait();
  std::string reasons;
  for (const char* reason : {"truncated header", "length mismatch", "bad magic",
                             "length mismatch", "no reply-to"})
    reasons += std::string("ipclab-peer: rejected frame: ") + reason + "\n";
  EXPECT_EQ(stopped.err, reasons);
  EXPECT_EQ(stopped.exit_code, 0);
}

TEST_F(Nats, AnEmptyAnswerIsAProtocolErrorAndNoResponderAnIoError) {
  // A responder of this test's own that answers the first request with an empty message.
  Raw raw(endpoint("t:empty"));
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
  ASSERT_FALSE(l.endpoint.empty());
  Server server({"serve", "--mechanism", "nats", "--endpoint", with_name(l.endpoint, "t")});
  ASSERT_TRUE(server.ready());
  stop(l);
  const ChildResult r = server.wait(10000);
  EXPECT_EQ(r.exit_code, 5) << r.err;
  // With no server to connect to (its stdin held, as the orchestrator holds it: at end of stdin
  // a server exits 0 at once, which could come first).
  Server refused({"serve", "--mechanism", "nats", "--endpoint", with_name(l.endpoint, "t")});
  EXPECT_FALSE(refused.ready());
  const ChildResult why = refused.wait(10000);
  EXPECT_EQ(why.exit_code, 5) << why.err;
}

#endif  // IPCLAB_EXPECT_NATS

}  // namespace
}  // namespace ipclab
