// The message channels (sysv-mq, posix-mq, sysv-shm) and the file mechanisms (file, file-poll)
// of PROTOCOL.md sections 4.1 and 4.2: the stream-over-messages adapter in process, then
// ipclab-peer run as the orchestrator runs it: round trips of every size, faults, malformed
// frames, timeouts, EIDRM, and the removal of every kernel object the server created.
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "endpoint.hpp"
#include "frame.hpp"
#include "lifecycle.hpp"
#include "support.hpp"
#include "transport/message.hpp"

namespace ipclab {
namespace {

using test::ChildResult;
using test::Server;
using test::TempDir;

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

// ---- kernel objects -------------------------------------------------------------------------

bool is_posix_shm(const std::string& mech) {
  return mech == "shm" || mech == "shm-spin" || mech == "shm-futex";
}

bool is_message_mechanism(const std::string& mech) {
  return mech == "sysv-mq" || mech == "posix-mq" || mech == "sysv-shm" || is_posix_shm(mech);
}

// Whether /proc/sysvipc/<table> (msg, shm, sem) lists an object with this key.
bool sysv_key_listed(const std::string& table, int key) {
  std::ifstream in("/proc/sysvipc/" + table);
  std::string line;
  std::getline(in, line);  // column titles
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    long long k = 0;
    if ((fields >> k) && static_cast<int>(k) == key) return true;
  }
  return false;
}

bool posix_queue_exists(const std::string& name) {
  const mqd_t q = ::mq_open(name.c_str(), O_RDONLY);
  if (q != static_cast<mqd_t>(-1)) {
    ::mq_close(q);
    return true;
  }
  EXPECT_EQ(errno, ENOENT) << name;
  return false;
}

// Everything a READY endpoint names still exists (true) or none of it does (false).
struct Objects {
  int msg = 0, shm = 0, sem = 0, queues = 0, posix_shm = 0;
  int total() const { return msg + shm + sem + queues + posix_shm; }
};
Objects objects_of(const std::string& mech, const std::string& endpoint) {
  Objects o;
  if (endpoint.rfind("sysv:", 0) == 0) {
    const int key = parse_sysv_key(endpoint).key;
    o.msg = sysv_key_listed("msg", key);
    o.shm = sysv_key_listed("shm", key);
    o.sem = sysv_key_listed("sem", key);
  } else if (mech == "posix-mq") {
    const std::string prefix = parse_posix_name(endpoint).prefix;
    o.queues = posix_queue_exists(prefix + "-1") + posix_queue_exists(prefix + "-2");
  } else if (is_posix_shm(mech)) {
    o.posix_shm = test::exists("/dev/shm" + parse_posix_name(endpoint).prefix + "-shm");
  }
  return o;
}

// Removes what a READY endpoint names, as the orchestrator does after a crash. Used by tests
// (a dead server) and by IpcGuard (a failing test must not leave objects behind).
void remove_objects(const std::string& endpoint) {
  if (endpoint.rfind("sysv:", 0) == 0) {
    const int key = parse_sysv_key(endpoint).key;
    if (const int id = ::msgget(key, 0); id >= 0) ::msgctl(id, IPC_RMID, nullptr);
    if (const int id = ::shmget(key, 0, 0); id >= 0) ::shmctl(id, IPC_RMID, nullptr);
    if (const int id = ::semget(key, 0, 0); id >= 0) ::semctl(id, 0, IPC_RMID);
  } else if (endpoint.rfind("posix:", 0) == 0) {
    const std::string prefix = parse_posix_name(endpoint).prefix;
    ::mq_unlink((prefix + "-1").c_str());
    ::mq_unlink((prefix + "-2").c_str());
    ::shm_unlink((prefix + "-shm").c_str());
  }
}

// Declared before the Server: destroyed after it, it resumes a stopped server (so that the
// Server's destructor can end it) and removes whatever the server left.
struct IpcGuard {
  std::string endpoint;
  ~IpcGuard() {
    if (!endpoint.empty()) remove_objects(endpoint);
  }
};
struct Resume {  // declared after the Server: SIGCONT before the Server's destructor runs
  pid_t pid = -1;
  ~Resume() {
    if (pid > 0) ::kill(pid, SIGCONT);
  }
};

// ---- subprocess helpers ---------------------------------------------------------------------

using test::DriveRun;

DriveRun drive(const std::string& mech, const std::string& endpoint, const TempDir& dir,
               std::uint32_t request, std::uint32_t response, std::uint64_t iterations,
               const std::vector<std::string>& extra = {}) {
  return test::drive_bytes(mech, endpoint, dir, request, response, iterations, extra);
}

// The server's directory for file mechanisms lives inside the test's TempDir (the client's
// result files stay outside it, so that only frames appear there).
std::string serve_endpoint(const std::string& mech, const TempDir& dir) {
  if (is_message_mechanism(mech)) return "auto";
  const std::string d = dir.file("frames");
  ::mkdir(d.c_str(), 0700);
  return d;
}

std::vector<std::string> serve_args(const std::string& mech, const TempDir& dir,
                                    const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"serve", "--mechanism", mech, "--endpoint",
                                   serve_endpoint(mech, dir)};
  if (mech == "file-poll") {
    args.push_back("--poll-interval-us");
    args.push_back("200");
  }
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::vector<std::string> client_extra(const std::string& mech) {
  if (mech == "file-poll") return {"--poll-interval-us", "200"};
  return {};
}

// A server of mech in a fresh directory; whatever the test does, the kernel objects its READY
// named are removed after it ends (members are destroyed server first, then guard, then dir).
struct Served {
  explicit Served(const std::string& mech, const std::vector<std::string>& extra = {})
      : server(serve_args(mech, dir, extra)) {
    if (server.ready()) guard.endpoint = server.endpoint();
  }
  TempDir dir;
  IpcGuard guard;
  Server server;
};

bool directory_empty(const std::string& d) {
  return std::filesystem::is_empty(d);
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

// A server killed (SIGKILL) before the test: nothing it created was removed.
class DeadServer : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(served.server.ready());
    served.server.signal(SIGKILL);
    served.server.wait();
  }
  const std::string mech = GetParam();
  Served served{mech};
  const std::string ep = served.server.ready() ? served.server.endpoint() : "";
};

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

// ---- files: malformed frames, existing paths ------------------------------------------------

void put_frame(const std::string& dir, const std::vector<std::uint8_t>& bytes) {
  // As a client does: write req.tmp, rename to req. Then wait until the server took it.
  const std::string tmp = dir + "/req.tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<long>(bytes.size()));
  }
  ASSERT_EQ(::rename(tmp.c_str(), (dir + "/req").c_str()), 0);
  for (int i = 0; i < 2500 && test::exists(dir + "/req"); ++i) ::usleep(2000);
  ASSERT_FALSE(test::exists(dir + "/req"));
}

class FileMechanism : public ::testing::TestWithParam<std::string> {};

TEST_P(FileMechanism, RejectsMalformedFilesAndServesTheNextClient) {
  const std::string mech = GetParam();
  TempDir dir;
  Server server(serve_args(mech, dir));
  ASSERT_TRUE(server.ready());
  const std::string d = server.endpoint();
  std::string expected;
  for (const auto& m : test::vectors()["malformed"]) {
    std::string reason = m["reason"];
    if (reason == "truncated payload") reason = "length mismatch";  // a file has one size
    put_frame(d, test::from_hex(m["hex"].get<std::string>()));
    expected += "ipclab-peer: rejected frame: " + reason + "\n";
  }
  const DriveRun run = drive(mech, d, dir, 5000, 5000, 3, client_extra(mech));
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  server.close_stdin();
  const ChildResult end = server.wait();
  EXPECT_EQ(end.exit_code, 0);
  EXPECT_EQ(end.err, expected);
  EXPECT_TRUE(directory_empty(d));
}

TEST_P(FileMechanism, SigtermRemovesLeftoverFrames) {
  const std::string mech = GetParam();
  TempDir dir;
  Server server(serve_args(mech, dir));
  ASSERT_TRUE(server.ready());
  const std::string d = server.endpoint();
  std::ofstream(d + "/resp.tmp") << "x";
  std::ofstream(d + "/resp") << "x";
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait().exit_code, 0);
  EXPECT_TRUE(directory_empty(d));
}

TEST_P(FileMechanism, ServerRefusesExistingFrames) {
  const std::string mech = GetParam();
  TempDir dir;
  const std::string d = serve_endpoint(mech, dir);
  std::ofstream(d + "/req") << "x";
  Server server(serve_args(mech, dir));
  EXPECT_FALSE(server.ready());
  const ChildResult end = server.wait();
  EXPECT_EQ(end.exit_code, 5) << end.err;
  EXPECT_NE(end.err.find("path exists"), std::string::npos) << end.err;
  EXPECT_TRUE(test::exists(d + "/req"));  // not the server's to remove
}

INSTANTIATE_TEST_SUITE_P(Peer, FileMechanism, ::testing::Values("file", "file-poll"),
                         test::param_name);

// ---- shm, shm-spin, shm-futex: a dead server, the hybrid's spin time --------------------------

class PosixShmMechanism : public ::testing::TestWithParam<std::string> {};

class ShmDeadServer : public DeadServer {};

TEST_P(ShmDeadServer, IsATimeoutAndARemovedNameAnIoError) {
  // Nobody ever wakes the client; its waits (spinning or on the futex) end at --io-timeout.
  // Once the orchestrator removed the name, opening fails.
  ASSERT_EQ(objects_of(mech, ep).posix_shm, 1);
  DriveRun run = drive(mech, ep, served.dir, 16, 16, 3, {"--io-timeout", "0.3"});
  EXPECT_EQ(run.child.exit_code, 6) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "timeout");
  remove_objects(ep);
  run = drive(mech, ep, served.dir, 16, 16, 3, {"--io-timeout", "0.3"});
  EXPECT_EQ(run.child.exit_code, 5) << run.child.err;
}

INSTANTIATE_TEST_SUITE_P(Peer, ShmDeadServer, ::testing::Values("shm", "shm-spin", "shm-futex"),
                         test::param_name);

TEST_P(PosixShmMechanism, AnySpinTimeWorks) {
  const std::string mech = GetParam();
  for (const char* spin : {"0", "1", "1000"}) {
    Served served(mech, {"--spin-us", spin});
    ASSERT_TRUE(served.server.ready());
    const DriveRun run =
        drive(mech, served.server.endpoint(), served.dir, 100, 5000, 200, {"--spin-us", spin, "--warmup", "5"});
    EXPECT_EQ(run.child.exit_code, 0) << spin << ": " << run.child.err;
    EXPECT_EQ(run.samples.size(), 200u);
    served.server.close_stdin();
    EXPECT_EQ(served.server.wait().exit_code, 0);
    EXPECT_EQ(objects_of(mech, served.server.endpoint()).total(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Peer, PosixShmMechanism,
                         ::testing::Values("shm", "shm-spin", "shm-futex"),
                         test::param_name);

// The offsets of the contract's table (4.3), read back raw through a mapping of our own: each
// side writes only its own line, messages of at most 48 bytes travel in it, longer ones in the
// slots. Both sides live in this process, on an object named with its pid.
TEST(PosixShmLayout, OneLinePerSideAndInlineMessages) {
  MessageServer server = create_posix_shm(ShmWait::spin, 0);
  struct Remove {
    ~Remove() { remove_created_paths(); }
  } remove;
  auto client = open_posix_shm(parse_posix_name(server.endpoint), ShmWait::spin, 0, 1'000'000'000);
  const std::string name = parse_posix_name(server.endpoint).prefix + "-shm";
  const int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
  ASSERT_GE(fd, 0);
  void* map = ::mmap(nullptr, 2101248, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  ASSERT_NE(map, MAP_FAILED);
  const auto* raw = static_cast<const std::uint8_t*>(map);
  const auto word = [raw](std::size_t at) {
    std::uint32_t v;
    std::memcpy(&v, raw + at, 4);
    return v;
  };
  const auto bytes = [raw](std::size_t at, std::size_t n) {
    return std::vector<std::uint8_t>(raw + at, raw + at + n);
  };
  std::vector<std::uint8_t> request(48), response(30), longer(49), got(1048576);
  for (std::size_t i = 0; i < request.size(); ++i) request[i] = static_cast<std::uint8_t>(i + 1);
  for (std::size_t i = 0; i < response.size(); ++i)
    response[i] = static_cast<std::uint8_t>(100 + i);
  for (std::size_t i = 0; i < longer.size(); ++i) longer[i] = static_cast<std::uint8_t>(i);

  client->send(request.data(), request.size());
  EXPECT_EQ(word(0), 1u);   // seq1
  EXPECT_EQ(word(8), 48u);  // length1
  EXPECT_EQ(bytes(16, 48), request);
  EXPECT_EQ(word(64), 0u);
  EXPECT_EQ(word(68), 0u);
  ASSERT_EQ(server.channel->receive(got.data()), 48u);
  EXPECT_EQ(std::vector<std::uint8_t>(got.begin(), got.begin() + 48), request);
  EXPECT_EQ(word(68), 1u);  // ack1, in the server's line
  server.channel->send(response.data(), response.size());
  EXPECT_EQ(word(64), 1u);  // seq2
  EXPECT_EQ(word(72), 30u);  // length2
  EXPECT_EQ(bytes(80, 30), response);
  ASSERT_EQ(client->receive(got.data()), 30u);
  EXPECT_EQ(std::vector<std::uint8_t>(got.begin(), got.begin() + 30), response);
  EXPECT_EQ(word(4), 1u);  // ack2, in the client's line

  client->send(longer.data(), longer.size());  // 49 bytes: the slot
  EXPECT_EQ(word(0), 2u);
  EXPECT_EQ(word(8), 49u);
  EXPECT_EQ(bytes(4096, 49), longer);
  EXPECT_EQ(bytes(16, 48), request);  // the inline bytes are left as they were
  ASSERT_EQ(server.channel->receive(got.data()), 49u);
  EXPECT_EQ(std::vector<std::uint8_t>(got.begin(), got.begin() + 49), longer);
  server.channel->send(longer.data(), longer.size());
  EXPECT_EQ(word(64), 2u);
  EXPECT_EQ(word(68), 2u);
  EXPECT_EQ(word(72), 49u);
  EXPECT_EQ(bytes(1052672, 49), longer);
  ASSERT_EQ(client->receive(got.data()), 49u);
  EXPECT_EQ(word(4), 2u);
  EXPECT_EQ(word(12), 0u);  // reserved
  EXPECT_EQ(word(76), 0u);
  EXPECT_EQ(word(128), 0u);  // sleepers: nobody slept
  EXPECT_EQ(word(192), 0u);
  ::munmap(map, 2101248);
}

}  // namespace
}  // namespace ipclab
