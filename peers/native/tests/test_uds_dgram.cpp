// uds-dgram (PROTOCOL.md 4.5), beyond what every mechanism's round-trip tests cover: the
// largest payload (SO_SNDBUF raised, read back, min(sndbuf - 32, 4 MiB) - 24) and what is over
// it, the server's rejections, and the client's own socket path (PATH.<pid>, 0600, removed at
// the end, on errors too).
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "frame.hpp"
#include "support.hpp"

namespace ipclab {
namespace {

using test::DriveRun;
using test::Server;
using test::TempDir;

sockaddr_un address_of(const std::string& path) {
  sockaddr_un sun{};
  sun.sun_family = AF_UNIX;
  std::strncpy(sun.sun_path, path.c_str(), sizeof sun.sun_path - 1);
  return sun;
}

// A datagram socket of this test bound at path (so that a server can answer it).
int bound_socket(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  const sockaddr_un sun = address_of(path);
  EXPECT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&sun), sizeof sun), 0);
  return fd;
}

void send_to(int fd, const std::string& path, const std::vector<std::uint8_t>& bytes) {
  const sockaddr_un sun = address_of(path);
  ASSERT_EQ(::sendto(fd, bytes.data(), bytes.size(), 0, reinterpret_cast<const sockaddr*>(&sun),
                     sizeof sun),
            static_cast<ssize_t>(bytes.size()));
}

// The limit of section 4.5, computed here the way the contract says.
std::uint64_t expected_limit() {
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
  const int big = INT_MAX;
  ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  int sndbuf = 0;
  socklen_t len = sizeof sndbuf;
  ::getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len);
  ::close(fd);
  return std::min<std::uint64_t>(static_cast<std::uint64_t>(sndbuf) - 32, 4194304) - 24;
}

std::uint64_t announced_limit() {
  int code = -1;
  const auto caps = nlohmann::json::parse(test::peer_stdout({"capabilities"}, &code));
  return caps["mechanisms"]["uds-dgram"]["max_payload"].get<std::uint64_t>();
}

// Files "s.<pid>" left in dir: the clients' own socket paths.
int client_paths(const std::string& dir) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    n += e.path().filename().string().rfind("s.", 0) == 0 &&
         e.path().filename() != "samples.bin";
  return n;
}

TEST(UdsDgram, LimitIsTheKernelsAndAboveItIsUnsupported) {
  const std::uint64_t limit = expected_limit();
  EXPECT_EQ(announced_limit(), limit);
  EXPECT_GE(limit, 65536u);  // Debian's default wmem_max alone gives 425928
  TempDir dir;
  Server server({"serve", "--mechanism", "uds-dgram", "--endpoint", dir.file("s")});
  ASSERT_TRUE(server.ready());
  const auto at = [&](std::uint64_t request, std::uint64_t response) {
    return test::drive_bytes("uds-dgram", server.endpoint(), dir, static_cast<std::uint32_t>(request),
                             static_cast<std::uint32_t>(response), 2);
  };
  DriveRun run = at(limit, limit);
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.samples.size(), 2u);
  for (auto [req, resp] : {std::pair{limit + 1, std::uint64_t{16}}, {16, limit + 1}}) {
    run = at(req, resp);
    EXPECT_EQ(run.child.exit_code, 7) << req << "/" << resp << ": " << run.child.err;
    EXPECT_EQ(run.result["error_kind"], "unsupported");
  }
  EXPECT_EQ(client_paths(dir.path()), 0);  // every client removed its own socket
}

TEST(UdsDgram, ServerRejectsBadDatagramsAndGoesOn) {
  TempDir dir;
  Server server({"serve", "--mechanism", "uds-dgram", "--endpoint", dir.file("s")});
  ASSERT_TRUE(server.ready());
  const int fd = bound_socket(dir.file("c"));
  send_to(fd, dir.file("s"), {1, 2, 3});  // shorter than a header
  std::vector<std::uint8_t> frame(kHeaderSize + 15);
  encode_header(frame.data(), FrameKind::request, 0, 16, 16);  // 16 B announced, 15 B sent
  send_to(fd, dir.file("s"), frame);
  send_to(fd, dir.file("s"), test::from_hex(test::vectors()["malformed"][1]["hex"]));
  std::vector<std::uint8_t> greedy(kHeaderSize);  // wants more than one datagram can carry
  encode_header(greedy.data(), FrameKind::request, 0, 0, static_cast<std::uint32_t>(expected_limit() + 1));
  send_to(fd, dir.file("s"), greedy);
  // A valid END from the same address is still answered.
  std::vector<std::uint8_t> end(kHeaderSize);
  encode_header(end.data(), FrameKind::end, 9, 0, 0);
  send_to(fd, dir.file("s"), end);
  std::uint8_t ack[64];
  EXPECT_EQ(::recv(fd, ack, sizeof ack, 0), static_cast<ssize_t>(kEndAckSize));
  EXPECT_EQ(load_le64(ack + kOffSequence), 9u);
  ::close(fd);
  const DriveRun run = test::drive_bytes("uds-dgram", server.endpoint(), dir, 16, 16, 5);
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  server.close_stdin();
  const test::ChildResult r = server.wait();
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err,
            "ipclab-peer: rejected frame: truncated header\n"
            "ipclab-peer: rejected frame: length mismatch\n"
            "ipclab-peer: rejected frame: bad version\n"
            "ipclab-peer: rejected frame: length too large\n");
  EXPECT_FALSE(test::exists(dir.file("s")));
}

TEST(UdsDgram, ClientBindsItsOwnPathAndRemovesItOnErrorsToo) {
  // A silent "server" of this test: it sees the request's source path, never answers.
  TempDir dir;
  const int silent = bound_socket(dir.file("s"));
  struct stat seen {};
  std::string source;
  std::thread peek([&] {
    std::uint8_t buf[128];
    sockaddr_un from{};
    socklen_t len = sizeof from;
    if (::recvfrom(silent, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &len) > 0) {
      source = from.sun_path;
      ::lstat(source.c_str(), &seen);
    }
  });
  const DriveRun run = test::drive_bytes("uds-dgram", dir.file("s"), dir, 16, 16, 3,
                                         {"--io-timeout", "0.5"});
  peek.join();
  ::close(silent);
  EXPECT_EQ(run.child.exit_code, 6) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "timeout");
  const std::string own = dir.file("s.") + std::to_string(run.result["pid"].get<long>());
  EXPECT_EQ(source, own);
  EXPECT_TRUE(S_ISSOCK(seen.st_mode));
  EXPECT_EQ(seen.st_mode & 0777, 0600u);
  EXPECT_FALSE(test::exists(own));

  // No server at all: connect fails (io), the client's path is gone too.
  const DriveRun refused = test::drive_bytes("uds-dgram", dir.file("nobody"), dir, 16, 16, 1);
  EXPECT_EQ(refused.child.exit_code, 5) << refused.child.err;
  EXPECT_FALSE(test::exists(dir.file("nobody.") + std::to_string(refused.result["pid"].get<long>())));
}

TEST(UdsDgram, ServerRefusesAnExistingPath) {
  TempDir dir;
  { std::ofstream(dir.file("taken")) << "x"; }
  Server server({"serve", "--mechanism", "uds-dgram", "--endpoint", dir.file("taken")});
  EXPECT_FALSE(server.ready());
  const test::ChildResult r = server.wait();
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_NE(r.err.find("path exists"), std::string::npos) << r.err;
  EXPECT_TRUE(test::exists(dir.file("taken")));
}

}  // namespace
}  // namespace ipclab
