// Contract 6's --read-size (serve, section 1; 11.1): the stream server reads a stream's message
// bytes in reads of at most N bytes, observed in the read calls of /proc/.../io, in process (the
// handler over a socketpair) and from outside (ipclab-peer's server of tcp, uds, pipe and fifo);
// elsewhere it is unsupported. Its parsing is in test_conditions.cpp.
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "frame.hpp"
#include "payload.hpp"
#include "server.hpp"
#include "support.hpp"
#include "tally.hpp"

namespace ipclab {
namespace {

using test::Server;
using test::TempDir;

// The read calls (read, readv, ...) a thread or process has made: /proc/.../io's syscr.
std::uint64_t read_calls(const std::string& io_file) {
  std::istringstream in(test::read_file(io_file));
  std::string name;
  std::uint64_t value = 0;
  while (in >> name >> value)
    if (name == "syscr:") return value;
  ADD_FAILURE() << "no syscr in " << io_file;
  return 0;
}

// A stream's bytes as a client sends them (11.1): MARK (count K), K messages of S bytes, END.
std::vector<std::uint8_t> stream_session(std::uint32_t size, std::uint64_t count) {
  std::vector<std::uint8_t> out(kMarkSize);
  encode_header(out.data(), FrameKind::mark, 0, kMarkPayload, 0);
  encode_mark(out.data() + kHeaderSize, size, count);
  for (std::uint64_t seq = 1; seq <= count; ++seq) {
    const auto m = make_payload(1, PayloadStream::request, seq, size);
    out.insert(out.end(), m.begin(), m.end());
  }
  std::uint8_t end[kHeaderSize];
  encode_header(end, FrameKind::end, count + 1, 0, 0);
  out.insert(out.end(), end, end + kHeaderSize);
  return out;
}

// Serves one stream session, written in one go, over a socketpair in this thread; returns the
// read calls this thread made for it and checks the answers (MARK_ACK, then the END_ACK that
// counts every message and its checksum).
std::uint64_t serve_session(std::size_t read_size, std::uint32_t size, std::uint64_t count) {
  int sv[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  const std::vector<std::uint8_t> input = stream_session(size, count);
  std::vector<std::uint8_t> answers;
  std::thread writer([&] {
    for (std::size_t off = 0; off < input.size();) {
      const ssize_t n = ::write(sv[0], input.data() + off, input.size() - off);
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
    ::shutdown(sv[0], SHUT_WR);
  });
  std::thread reader([&] {
    std::uint8_t buf[4096];
    for (ssize_t n; (n = ::read(sv[0], buf, sizeof buf)) > 0;) answers.insert(answers.end(), buf,
                                                                               buf + n);
  });
  StreamConnectionHandler handler(ServerConfig{}, read_size);
  Stream stream(sv[1], sv[1]);
  const std::uint64_t before = read_calls("/proc/thread-self/io");
  const ConnectionOutcome out = handler.serve(stream);
  const std::uint64_t reads = read_calls("/proc/thread-self/io") - before;
  stream.close();
  writer.join();
  reader.join();
  ::close(sv[0]);
  EXPECT_EQ(out.end, ConnectionOutcome::End::closed) << out.detail;
  EXPECT_EQ(answers.size(), kHeaderSize + kStreamAckSize);
  if (answers.size() == kHeaderSize + kStreamAckSize) {
    const std::uint8_t* ack = answers.data() + kHeaderSize + kHeaderSize;
    EXPECT_EQ(load_le64(ack), count);  // received
    EXPECT_EQ(load_le64(ack + 8), 0u);  // gaps
    EXPECT_EQ(load_le64(ack + 16), expected_checksum(1, size, 1, count));
  }
  return reads;
}

TEST(ReadSize, TheHandlerReadsMessagesInAtMostNBytes) {
  // 1 000 000 message bytes. The MARK's read is a frame's (greedy, as before) and may take up to
  // the buffer's 64 KiB of them, since this client does not wait for MARK_ACK; every other
  // message byte comes in reads of at most 100 bytes.
  const std::uint64_t bounded = serve_session(100, 1000, 1000);
  EXPECT_GE(bounded, (1'000'000 - 65'536) / 100);
  EXPECT_LT(serve_session(0, 1000, 1000), 2000u);  // greedy: 64 KiB at a time
  // Sizes that do not divide one another, a read of one byte, one above the message (a read
  // may then span messages, never the END after them), a message larger than the first buffer,
  // the largest N: all counted and summed.
  for (const auto& [n, size, count] :
       std::vector<std::tuple<std::size_t, std::uint32_t, std::uint64_t>>{
           {1024, 1027, 300}, {3, 5, 20000}, {1, 100, 1000}, {1001, 1000, 500},
           {65536, 200000, 5}, {134217728, 9, 10}}) {
    SCOPED_TRACE(std::to_string(n) + " " + std::to_string(size));
    const std::uint64_t total = std::uint64_t{size} * count;
    const std::uint64_t after_mark = total > 65'536 ? total - 65'536 : 0;
    EXPECT_GE(serve_session(n, size, count), after_mark / n);
  }
}

// A server of tcp, uds, pipe or fifo and a stream client against it, as the orchestrator runs
// them.
struct StreamServer {
  StreamServer(const std::string& mech, const std::vector<std::string>& extra) : mech(mech) {
    std::vector<std::string> args = {"serve", "--mechanism", mech, "--endpoint",
                                     test::server_endpoint(mech, dir, pipes)};
    args.insert(args.end(), extra.begin(), extra.end());
    server.emplace(args, mech == "pipe" ? pipes.server_fds() : std::vector<int>{});
  }
  // The server's read calls over one stream of `messages` messages of `size` bytes.
  std::uint64_t stream_reads(std::uint32_t size, std::uint64_t messages) {
    const std::string io = "/proc/" + std::to_string(server->pid()) + "/io";
    const std::uint64_t before = read_calls(io);
    const std::vector<std::string> args = {
        "drive", "--pattern", "stream", "--mechanism", mech, "--endpoint",
        mech == "pipe" ? pipes.client_endpoint() : server->endpoint(), "--message-size",
        std::to_string(size), "--messages", std::to_string(messages), "--warmup", "3",
        "--samples-file", dir.file("samples.bin"), "--result-file", dir.file("result.json")};
    const test::ChildResult run =
        test::run_peer(args, mech == "pipe" ? pipes.client_fds() : std::vector<int>{}, 60000);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // END's answer went out first
    return read_calls(io) - before;
  }
  void stop() {
    pipes.close_all();
    server->close_stdin();
    const test::ChildResult end = server->wait();
    EXPECT_EQ(end.exit_code, 0) << end.err;
  }

  std::string mech;
  TempDir dir;
  test::Pipes pipes;
  std::optional<Server> server;
};

class ReadSizeMechanism : public ::testing::TestWithParam<std::string> {};

// The client waits for MARK_ACK before its messages (11.1), so every message byte comes in a
// read of at most N: 200 messages of 10 000 bytes in reads of at most 100 bytes are at least
// 20 000 reads; greedy reads take what the kernel has (a message or more at a time).
TEST_P(ReadSizeMechanism, TheServerReadsMessagesInAtMostNBytes) {
  const std::string mech = GetParam();
  StreamServer bounded(mech, {"--read-size", "100"});
  ASSERT_TRUE(bounded.server->ready());
  EXPECT_GE(bounded.stream_reads(10000, 200), 20000u);
  if (mech != "pipe") {  // one client per pipe server
    EXPECT_GE(bounded.stream_reads(7, 10000), 700u);  // N above S: reads span messages
    EXPECT_GE(bounded.stream_reads(100000, 20), 20000u);  // S above the first buffer
  }
  bounded.stop();
  StreamServer greedy(mech, {});
  ASSERT_TRUE(greedy.server->ready());
  EXPECT_LT(greedy.stream_reads(10000, 200), 10000u);
  greedy.stop();
}

INSTANTIATE_TEST_SUITE_P(Peer, ReadSizeMechanism,
                         ::testing::Values("tcp", "uds", "pipe", "fifo"), test::param_name);

TEST(ReadSize, ElsewhereUnsupported) {
  TempDir dir;
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--mechanism", "udp", "--endpoint", "127.0.0.1:0"},
           {"--mechanism", "sysv-mq", "--endpoint", "auto"},
           {"--mechanism", "shm", "--endpoint", "auto"},
           {"--mechanism", "grpc", "--endpoint", "127.0.0.1:0"},
           {"--mechanism", "tcp", "--endpoint", "127.0.0.1:0", "--server-model", "thread",
            "--connections", "1", "--phases-file", dir.file("p")}}) {
    std::vector<std::string> a = {"serve", "--read-size", "64"};
    a.insert(a.end(), args.begin(), args.end());
    Server server(a);
    EXPECT_FALSE(server.ready()) << args[1];
    const test::ChildResult end = server.wait();
    EXPECT_EQ(end.exit_code, 7) << args[1] << ": " << end.err;
    EXPECT_NE(end.err.find("--read-size"), std::string::npos) << end.err;
  }
  Server zero({"serve", "--mechanism", "udp", "--endpoint", "127.0.0.1:0", "--read-size", "0"});
  EXPECT_TRUE(zero.ready());  // 0 is as before, everywhere
  zero.close_stdin();
  EXPECT_EQ(zero.wait().exit_code, 0);
}

}  // namespace
}  // namespace ipclab
