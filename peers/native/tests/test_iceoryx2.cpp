// iceoryx2, iceoryx2-spin (PROTOCOL.md 4.12): the C++ client against the C++ server, each its
// own node on the server's services: READY's prefix and directory, private objects, nothing of
// the prefix left in /dev/shm after the server, rr at 0 B, 16 B, 1 MiB and the 16 MiB cap (and
// one byte more refused), streams past the subscriber's buffer, the faults, what a server
// rejects (an empty sample; it goes on), an empty answer, a server that dies under a client, the
// patterns it does not carry, and `capabilities`' library. The test's own sides (a raw client,
// a server that answers empty) are ipclab's binding, called directly. A build without the
// binding (no cargo) must not list the mechanisms.
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "endpoint.hpp"
#include "frame.hpp"
#include "message_library.hpp"
#include "support.hpp"
#ifdef IPCLAB_EXPECT_ICEORYX2
#include "ipclab_iceoryx2.h"
#endif

namespace ipclab {
namespace {

TEST(Iceoryx2Endpoint, IsThePosixNameThenTheDirectory) {
  const PosixDirEndpoint e = parse_posix_dir("posix:/ipclab-42,/tmp/d,x");
  EXPECT_EQ(e.prefix, "/ipclab-42");
  EXPECT_EQ(e.dir, "/tmp/d,x");  // the first comma ends the name
  for (const char* bad : {"posix:/ipclab-42", "posix:/ipclab-42,", "/tmp/d", "posix:ipclab-1,/d",
                          "posix:/a/b,/d", "posix:/,/d", ",/d"})
    EXPECT_THROW(parse_posix_dir(bad), UsageError) << bad;
}

TEST(Iceoryx2Capabilities, ListedWithTheLibraryExactlyWhereBuiltIn) {
#ifdef IPCLAB_EXPECT_ICEORYX2
  test::expect_listed_with_library({"iceoryx2", "iceoryx2-spin"}, true, ipclab_ix2_version());
  EXPECT_EQ(std::string(ipclab_ix2_version()), "iceoryx2 0.10.0");  // Cargo.lock's
#else
  test::expect_listed_with_library({"iceoryx2", "iceoryx2-spin"}, false, "");
#endif
}

// --sample-write (4.12): rr over iceoryx2 alone; another mechanism refuses header (7) on both
// sides, and a value other than full and header is a usage error.
TEST(Iceoryx2SampleWrite, IsIceoryx2sAlone) {
  test::TempDir dir;
  const test::ChildResult serve =
      test::run_peer({"serve", "--mechanism", "uds", "--endpoint", dir.file("s"),
                      "--sample-write", "header"});
  EXPECT_EQ(serve.exit_code, 7) << serve.err;
  EXPECT_NE(serve.err.find("--sample-write header"), std::string::npos) << serve.err;
  const test::DriveRun drive =
      test::drive_bytes("uds", dir.file("s"), dir, 16, 16, 1, {"--sample-write", "header"});
  EXPECT_EQ(drive.child.exit_code, 7) << drive.child.err;
  EXPECT_EQ(drive.result["error_kind"], "unsupported");
  EXPECT_EQ(test::drive_bytes("uds", dir.file("s"), dir, 16, 16, 1, {"--sample-write", "some"})
                .child.exit_code,
            2);
}

#ifdef IPCLAB_EXPECT_ICEORYX2

using test::ChildResult;
using test::DriveRun;
using test::Server;
using test::TempDir;

constexpr std::uint32_t kIx2Largest = 16u << 20;  // ipclab's cap (4.12)

// The names in /dev/shm that start with prefix.
std::vector<std::string> ix2_shm_objects(const std::string& prefix) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir("/dev/shm")) {
    while (const dirent* e = ::readdir(d))
      if (std::string(e->d_name).rfind(prefix, 0) == 0) names.push_back(e->d_name);
    ::closedir(d);
  }
  return names;
}

void ix2_remove_shm_objects(const std::string& prefix) {
  for (const std::string& name : ix2_shm_objects(prefix)) ::unlink(("/dev/shm/" + name).c_str());
}

// Whether path's mode lets anyone but the owner in.
bool ix2_open_to_others(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) != 0 || (st.st_mode & 077) != 0;
}

// The server's directory in dir (0700, made here).
std::string ix2_root(const TempDir& dir) {
  const std::string root = dir.file("r");
  ::mkdir(root.c_str(), 0700);
  return root;
}

Server ix2_server(const std::string& mech, const TempDir& dir,
                  const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"serve", "--mechanism", mech, "--endpoint", ix2_root(dir)};
  args.insert(args.end(), extra.begin(), extra.end());
  return Server(args);
}

// A side of the test's own through the binding, made (and used, and closed) by one thread.
class Ix2Side {
 public:
  // The client of a server's endpoint (posix:/NAME,DIR), or a server of its own in root with
  // the prefix ipclab-<this process's pid>-.
  Ix2Side(const std::string& mech, bool server, const std::string& where) {
    const bool spin = mech == "iceoryx2-spin";
    std::string root = where, prefix = "ipclab-" + std::to_string(::getpid()) + "-";
    if (!server) {
      const PosixDirEndpoint e = parse_posix_dir(where);
      root = e.dir;
      prefix = e.prefix.substr(1) + "-";
    }
    const ipclab_ix2_options o{server ? 1 : 0, spin ? 1 : 0, root.c_str(), prefix.c_str(), 64,
                               5'000'000'000};
    const mode_t old = ::umask(077);
    EXPECT_EQ(ipclab_ix2_open(&o, &side_), IPCLAB_IX2_OK) << ipclab_ix2_last_error();
    ::umask(old);
  }
  ~Ix2Side() { ipclab_ix2_close(side_); }
  bool ok() const { return side_ != nullptr; }

  void send(const std::vector<std::uint8_t>& bytes) {
    std::uint8_t* p = nullptr;
    ASSERT_EQ(ipclab_ix2_loan(side_, bytes.size(), &p), IPCLAB_IX2_OK) << ipclab_ix2_last_error();
    if (!bytes.empty()) std::memcpy(p, bytes.data(), bytes.size());
    ASSERT_EQ(ipclab_ix2_send_loaned(side_), IPCLAB_IX2_OK) << ipclab_ix2_last_error();
  }
  // The next sample within 5 s, copied (nullopt: none).
  std::optional<std::vector<std::uint8_t>> next() {
    const std::uint8_t* p = nullptr;
    std::size_t n = 0;
    if (ipclab_ix2_receive(side_, 5'000'000'000, &p, &n) != IPCLAB_IX2_OK) return std::nullopt;
    std::vector<std::uint8_t> out(p, p + n);
    ipclab_ix2_release(side_);
    return out;
  }
  // The link of message_library.hpp's rejections: bytes sent as a frame and their answer (none
  // within 5 s fails the test); n bytes as a stream message.
  std::vector<std::uint8_t> ask(const std::vector<std::uint8_t>& bytes) {
    send(bytes);
    std::optional<std::vector<std::uint8_t>> got = next();
    EXPECT_TRUE(got.has_value()) << "no answer on ipclab/responses within 5 s";
    return got.value_or(std::vector<std::uint8_t>());
  }
  void push(std::size_t n) { send(std::vector<std::uint8_t>(n, 0x5a)); }

 private:
  ipclab_ix2_side* side_ = nullptr;
};

class Iceoryx2 : public ::testing::TestWithParam<std::string> {
 protected:
  TempDir dir;
};

TEST_P(Iceoryx2, ReadyNamesThePrefixAndTheDirectoryAndTheServerLeavesNothingBehind) {
  for (const bool by_signal : {false, true}) {
    SCOPED_TRACE(by_signal ? "SIGTERM" : "end of stdin");
    TempDir d;
    Server server = ix2_server(GetParam(), d);
    ASSERT_TRUE(server.ready());
    const std::string pid = std::to_string(server.pid());
    EXPECT_EQ(server.endpoint(), "posix:/ipclab-" + pid + "," + d.file("r"));
    EXPECT_EQ(server.ready_json()["mechanism"], GetParam());
    const std::string prefix = "ipclab-" + pid + "-";
    EXPECT_FALSE(ix2_shm_objects(prefix).empty());  // 4.1's tag on every one of them
    EXPECT_EQ(test::drive_bytes(GetParam(), server.endpoint(), d, 16, 16, 5).child.exit_code, 0);
    // The directory stays private (iceoryx2's own subdirectories in it are 0750), and so is
    // every object in /dev/shm: the umask (077), and the node-global management segment, which
    // iceoryx2 makes 0666 itself, taken back to 0600.
    EXPECT_FALSE(ix2_open_to_others(d.file("r")));
    for (const std::string& name : ix2_shm_objects(prefix))
      EXPECT_FALSE(ix2_open_to_others("/dev/shm/" + name)) << name;
    if (by_signal)
      server.signal(SIGTERM);
    else
      server.close_stdin();
    const ChildResult r = server.wait();
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(ix2_shm_objects(prefix), std::vector<std::string>{});
  }
}

// --sample-write header on both sides (iceoryx2's benchmark): REQUEST and RESPONSE loaned at
// their size, only their headers written and checked; the END_ACK still counts no corruption
// (the requests' payloads are not read). A stream with it is unsupported.
TEST_P(Iceoryx2, SampleWriteHeaderWritesAndChecksTheHeadersAlone) {
  const std::string mech = GetParam();
  Server server = ix2_server(mech, dir, {"--sample-write", "header"});
  ASSERT_TRUE(server.ready());
  for (const std::uint32_t size : {0u, 16u, 1u << 20}) {
    const DriveRun run = test::drive_bytes(mech, server.endpoint(), dir, size, size, 20,
                                           {"--warmup", "3", "--sample-write", "header"});
    EXPECT_EQ(run.child.exit_code, 0) << size << ": " << run.child.err;
    EXPECT_EQ(run.samples.size(), 20u);
  }
  const DriveRun stream =
      test::stream_run(mech, server.endpoint(), dir,
                       {"--message-size", "64", "--messages", "10", "--sample-write", "header"});
  EXPECT_EQ(stream.child.exit_code, 7) << stream.child.err;
  server.close_stdin();
  const ChildResult r = server.wait();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST_P(Iceoryx2, RoundTripsUpToTheLargestPayloadAndRefusesOneByteMore) {
  Server server = ix2_server(GetParam(), dir);
  test::expect_round_trips_up_to_the_largest_payload(GetParam(), server, dir, kIx2Largest);
}

// 1 B and 1000 B: 3000 messages through a buffer of 16; 4 MiB: 40.
TEST_P(Iceoryx2, StreamsPastTheSubscribersBufferCountEveryMessage) {
  Server server = ix2_server(GetParam(), dir);
  test::expect_streams_count_every_message(GetParam(), server, dir);
}

TEST_P(Iceoryx2, FaultsFailTheClient) {
  const std::string mech = GetParam();
  test::expect_faults_fail_the_client(mech, [&](const std::string& fault, const TempDir& d) {
    return ix2_server(mech, d, {"--fault", fault});
  });
}

TEST_P(Iceoryx2, ShortLoadAndBadEndpointsAreRefused) {
  const std::string mech = GetParam();
  test::expect_short_and_load_refused(mech, "posix:/ipclab-1," + dir.path(), dir.path(), dir);
  for (const char* bad : {"posix:/ipclab-1", "/tmp", "posix:/ipclab-1,", "auto"}) {
    const DriveRun r = test::drive_bytes(mech, bad, dir, 16, 16, 1);
    EXPECT_EQ(r.child.exit_code, 2) << bad << ": " << r.child.err;
  }
  // A server's directory that is not one: io, before READY.
  Server none({"serve", "--mechanism", mech, "--endpoint", dir.file("missing")});
  EXPECT_FALSE(none.ready());
  EXPECT_EQ(none.wait().exit_code, 5);
  // No server there: the services do not exist, an io error at once.
  // No server there: the services do not exist, an io error at once (the client's node left
  // the node-global management segment of that prefix, which the orchestrator's sweep of a
  // dead server's objects takes; here the test).
  const std::string prefix = "ipclab-" + std::to_string(::getpid()) + "-";
  const DriveRun nobody = test::drive_bytes(
      mech, "posix:/ipclab-" + std::to_string(::getpid()) + "," + ix2_root(dir), dir, 16, 16, 1);
  EXPECT_EQ(nobody.child.exit_code, 5) << nobody.child.err;
  EXPECT_EQ(nobody.result["error_kind"], "io");
  ix2_remove_shm_objects(prefix);
}

TEST_P(Iceoryx2, RejectedFramesAreAnsweredEmptyAndTheServerGoesOn) {
  Server server = ix2_server(GetParam(), dir);
  ASSERT_TRUE(server.ready());
  {
    Ix2Side raw(GetParam(), false, server.endpoint());
    ASSERT_TRUE(raw.ok());
    test::expect_rejected_frames_answered_empty(raw, false);
  }
  // The next client opens the same services.
  EXPECT_EQ(test::drive_bytes(GetParam(), server.endpoint(), dir, 16, 16, 5).child.exit_code, 0);
  server.close_stdin();
  test::expect_rejections_said_in_order(server.wait());
}

TEST_P(Iceoryx2, AnEmptyAnswerIsAProtocolError) {
  // A server of this test's own that answers the first request with an empty sample, and
  // stays until the client is done (a publisher gone before the subscriber mapped its data
  // segment takes the sample with it).
  const std::string root = ix2_root(dir), mech = GetParam();
  std::promise<bool> made, done;
  std::future<bool> ready = made.get_future(), client_done = done.get_future();
  std::thread answer([&] {
    Ix2Side server(mech, true, root);
    made.set_value(server.ok());
    if (!server.ok()) return;
    if (server.next()) server.send({});
    client_done.wait();
  });
  if (ready.get()) {
    const DriveRun empty = test::drive_bytes(
        mech, "posix:/ipclab-" + std::to_string(::getpid()) + "," + root, dir, 16, 16, 1);
    EXPECT_EQ(empty.child.exit_code, 4) << empty.child.err;
    EXPECT_EQ(empty.result["error_kind"], "protocol");
  }
  done.set_value(true);
  answer.join();
  EXPECT_EQ(ix2_shm_objects("ipclab-" + std::to_string(::getpid()) + "-"),
            std::vector<std::string>{});
}

TEST_P(Iceoryx2, AClientWhoseServerDiesTimesOut) {
  Server server = ix2_server(GetParam(), dir);
  ASSERT_TRUE(server.ready());
  DriveRun run;
  std::thread client([&] {
    run = test::drive_bytes(GetParam(), server.endpoint(), dir, 16, 16, 1'000'000'000,
                            {"--io-timeout", "1"});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto killed = std::chrono::steady_clock::now();
  server.signal(SIGKILL);
  client.join();
  const auto waited = std::chrono::steady_clock::now() - killed;
  EXPECT_EQ(run.child.exit_code, 6) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "timeout");
  EXPECT_LT(waited, std::chrono::seconds(5));
  server.wait();
  ix2_remove_shm_objects("ipclab-" + std::to_string(server.pid()) + "-");  // the orchestrator's
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, Iceoryx2, ::testing::Values("iceoryx2", "iceoryx2-spin"),
                         test::param_name);

#endif  // IPCLAB_EXPECT_ICEORYX2

}  // namespace
}  // namespace ipclab
