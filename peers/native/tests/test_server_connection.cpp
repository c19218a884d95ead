// The server's connection handler fed through real descriptors: every `malformed` vector must be
// rejected with its reason (bytes written, then the write end closed, so truncation goes through
// the same reads the server uses), and a valid session must be answered byte for byte.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <sstream>
#include <thread>

#include "endpoint.hpp"
#include "frame.hpp"
#include "payload.hpp"
#include "server.hpp"
#include "support.hpp"
#include "transport/message.hpp"

namespace ipclab {
namespace {

void write_bytes(int fd, const std::vector<std::uint8_t>& bytes) {
  std::size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n <= 0) return;  // the server closed early (a rejected frame): fine
    off += static_cast<std::size_t>(n);
  }
}

std::vector<std::uint8_t> read_all(int fd) {
  std::vector<std::uint8_t> out;
  std::uint8_t buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return out;
    out.insert(out.end(), buf, buf + n);
  }
}

// Feeds `input` to a fresh connection over a socketpair (a writer thread writes it and then
// shuts down its side; a reader thread collects the answers); returns the outcome.
ConnectionOutcome serve_over_socketpair(const std::vector<std::uint8_t>& input,
                                        std::vector<std::uint8_t>* output = nullptr,
                                        ServerConfig config = {}) {
  int sv[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  std::vector<std::uint8_t> answers;
  std::thread writer([&] {
    write_bytes(sv[0], input);
    ::shutdown(sv[0], SHUT_WR);  // end of stream after the bytes
  });
  std::thread reader([&] { answers = read_all(sv[0]); });
  StreamConnectionHandler handler(config);
  Stream stream(sv[1], sv[1]);
  const ConnectionOutcome out = handler.serve(stream);
  stream.close();  // the reader sees end of stream
  writer.join();
  reader.join();
  ::close(sv[0]);
  if (output) *output = answers;
  return out;
}

// The same over two pipes (client->server bytes, server->client answers).
ConnectionOutcome serve_over_pipes(const std::vector<std::uint8_t>& input) {
  int in[2], out[2];
  EXPECT_EQ(::pipe2(in, O_CLOEXEC), 0);
  EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
  write_bytes(in[1], input);  // the malformed inputs fit in a pipe buffer
  ::close(in[1]);
  StreamConnectionHandler handler(ServerConfig{});
  Stream stream(in[0], out[1]);
  const ConnectionOutcome res = handler.serve(stream);
  stream.close();
  ::close(out[0]);
  return res;
}

TEST(ServerConnection, RejectsEveryMalformedVectorOverASocket) {
  const auto& list = test::vectors().at("malformed");
  ASSERT_GE(list.size(), 10u);
  for (const auto& v : list) {
    SCOPED_TRACE(v.at("name").get<std::string>());
    const ConnectionOutcome out = serve_over_socketpair(test::from_hex(v.at("hex")));
    EXPECT_EQ(out.end, ConnectionOutcome::End::rejected);
    EXPECT_EQ(out.detail, v.at("reason").get<std::string>());
    EXPECT_EQ(out.requests, 0u);
  }
}

TEST(ServerConnection, RejectsEveryMalformedVectorOverAPipe) {
  for (const auto& v : test::vectors().at("malformed")) {
    SCOPED_TRACE(v.at("name").get<std::string>());
    const ConnectionOutcome out = serve_over_pipes(test::from_hex(v.at("hex")));
    EXPECT_EQ(out.end, ConnectionOutcome::End::rejected);
    EXPECT_EQ(out.detail, v.at("reason").get<std::string>());
  }
}

TEST(ServerConnection, EmptyStreamIsACleanClose) {
  const ConnectionOutcome out = serve_over_socketpair({});
  EXPECT_EQ(out.end, ConnectionOutcome::End::closed);
}

std::vector<std::uint8_t> request_frame(std::uint64_t seed, std::uint64_t seq, std::uint32_t len,
                                        std::uint32_t wanted) {
  std::vector<std::uint8_t> f(kHeaderSize);
  encode_header(f.data(), FrameKind::request, seq, len, wanted);
  const auto p = make_payload(seed, PayloadStream::request, seq, len);
  f.insert(f.end(), p.begin(), p.end());
  return f;
}

std::vector<std::uint8_t> response_frame(std::uint64_t seed, std::uint64_t seq,
                                         std::uint32_t len, std::uint32_t echoed) {
  std::vector<std::uint8_t> f(kHeaderSize);
  encode_header(f.data(), FrameKind::response, seq, len, echoed);
  const auto p = make_payload(seed, PayloadStream::response, seq, len);
  f.insert(f.end(), p.begin(), p.end());
  return f;
}

std::vector<std::uint8_t> end_ack_frame(std::uint64_t seq, std::uint64_t corrupted) {
  std::vector<std::uint8_t> f(kEndAckSize);
  encode_header(f.data(), FrameKind::end_ack, seq, 8, 0);
  store_le64(f.data() + kHeaderSize, corrupted);
  return f;
}

void append(std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
}

TEST(ServerConnection, AnswersASessionByteForByte) {
  // Varying sizes (0, small, one larger than the initial buffer) and two END rounds.
  std::vector<std::uint8_t> in, expected;
  append(in, request_frame(1, 0, 16, 16));
  append(expected, response_frame(1, 0, 16, 16));
  append(in, request_frame(1, 1, 0, 5));
  append(expected, response_frame(1, 1, 5, 0));
  append(in, request_frame(1, 2, 100000, 0));
  append(expected, response_frame(1, 2, 0, 100000));
  std::vector<std::uint8_t> end(kHeaderSize);
  encode_header(end.data(), FrameKind::end, 3, 0, 0);
  append(in, end);
  append(expected, end_ack_frame(3, 0));
  std::vector<std::uint8_t> out;
  const ConnectionOutcome res = serve_over_socketpair(in, &out);
  EXPECT_EQ(res.end, ConnectionOutcome::End::closed) << res.detail;
  EXPECT_EQ(res.requests, 3u);
  EXPECT_EQ(out, expected);
}

TEST(ServerConnection, CountsCorruptedRequestsUntilEnd) {
  std::vector<std::uint8_t> in, expected;
  auto bad = request_frame(1, 0, 16, 8);
  bad[kHeaderSize + 15] ^= 0xff;
  append(in, bad);
  append(expected, response_frame(1, 0, 8, 16));
  append(in, request_frame(2, 1, 16, 8));  // wrong seed: corrupted too
  append(expected, response_frame(1, 1, 8, 16));
  std::vector<std::uint8_t> end(kHeaderSize);
  encode_header(end.data(), FrameKind::end, 2, 0, 0);
  append(in, end);
  append(expected, end_ack_frame(2, 2));
  append(in, request_frame(1, 3, 16, 8));  // the count restarts after END
  append(expected, response_frame(1, 3, 8, 16));
  encode_header(end.data(), FrameKind::end, 4, 0, 0);
  append(in, end);
  append(expected, end_ack_frame(4, 0));
  std::vector<std::uint8_t> out;
  const ConnectionOutcome res = serve_over_socketpair(in, &out);
  EXPECT_EQ(res.end, ConnectionOutcome::End::closed) << res.detail;
  EXPECT_EQ(out, expected);
}

TEST(ServerConnection, FaultFlipsTheLastResponseByte) {
  ServerConfig config;
  config.flip_response_byte = true;
  for (std::uint32_t size : {1u, 8u, 9u, 64u}) {
    SCOPED_TRACE("size " + std::to_string(size));
    std::vector<std::uint8_t> in, expected;
    for (std::uint64_t seq = 0; seq < 3; ++seq) {  // the flip must not accumulate
      append(in, request_frame(1, seq, 4, size));
      auto r = response_frame(1, seq, size, 4);
      r.back() ^= 0x01;
      append(expected, r);
    }
    std::vector<std::uint8_t> out;
    serve_over_socketpair(in, &out, config);
    EXPECT_EQ(out, expected);
  }
}

// ---- the peer's own tcp server: memory bounded by the bytes that arrive ---------------------

// A process's address space (VmSize) and resident memory (VmRSS), in KiB (/proc/<pid>/status).
struct Memory {
  long size_kib = -1;
  long rss_kib = -1;
};

Memory memory_of(pid_t pid) {
  std::istringstream status(test::read_file("/proc/" + std::to_string(pid) + "/status"));
  Memory m;
  std::string key;
  long value = 0;
  while (status >> key) {
    if ((key == "VmSize:" || key == "VmRSS:") && status >> value)
      (key == "VmSize:" ? m.size_kib : m.rss_kib) = value;
    status.ignore(1 << 20, '\n');
  }
  return m;
}

// Hands a header claiming MAX_PAYLOAD and 1000 bytes of its payload to the server with `send`,
// then waits: the server must have grown by less than 16 MiB in address space (VmSize, what a
// buffer sized by the claim costs even untouched) and in resident memory (VmRSS).
void expect_a_silent_claim_is_cheap(pid_t pid,
                                    const std::function<void(const std::vector<std::uint8_t>&)>& send) {
  // READY comes before a server's first buffer: let it settle.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const Memory before = memory_of(pid);
  ASSERT_GT(before.size_kib, 0);
  ASSERT_GT(before.rss_kib, 0);
  std::vector<std::uint8_t> bytes(kHeaderSize + 1000, 0x5a);
  encode_header(bytes.data(), FrameKind::request, 0, kMaxPayload, 0);
  send(bytes);
  // The server takes what came and waits for the rest; an allocation would happen right away.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const Memory during = memory_of(pid);
  constexpr long kLimitKib = 16 * 1024;
  EXPECT_LT(during.size_kib - before.size_kib, kLimitKib)
      << "VmSize " << before.size_kib << " -> " << during.size_kib << " KiB";
  EXPECT_LT(during.rss_kib - before.rss_kib, kLimitKib)
      << "VmRSS " << before.rss_kib << " -> " << during.rss_kib << " KiB";
  std::printf("VmSize %+ld KiB, VmRSS %+ld KiB\n", during.size_kib - before.size_kib,
              during.rss_kib - before.rss_kib);
}

TEST(ServerMemory, AHeaderClaiming128MiBThenSilenceCostsAlmostNothing) {
  test::Server server({"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0"});
  ASSERT_TRUE(server.ready());
  const int fd = test::connect_loopback(SOCK_STREAM, server.endpoint());
  ASSERT_GE(fd, 0);
  expect_a_silent_claim_is_cheap(server.pid(), [&](const auto& b) { write_bytes(fd, b); });
  ::close(fd);  // the server rejects the truncated frame and serves the next client
  test::TempDir dir;
  const test::DriveRun run = test::drive_bytes("tcp", server.endpoint(), dir, 100000, 16, 5);
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.result["status"], "ok");
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

// A message channel reassembles a frame from messages of M bytes: its buffer too grows only
// as they arrive. The frame never completes; stdin's end stops the server (and removes its
// kernel objects) while it waits for the rest.
class ChannelMemory : public ::testing::TestWithParam<std::string> {};

std::unique_ptr<MessageChannel> open_waiting_client(const std::string& mech,
                                                    const std::string& ep) {
  if (mech == "sysv-mq") return open_sysv_mq(parse_sysv_key(ep));
  if (mech == "sysv-shm") return open_sysv_shm(parse_sysv_key(ep), 5'000'000'000);
  if (mech == "posix-mq") return open_posix_mq(parse_posix_name(ep));
  return open_posix_shm(parse_posix_name(ep), ShmWait::futex, 0, 5'000'000'000);
}

TEST_P(ChannelMemory, AHeaderClaiming128MiBThenSilenceCostsAlmostNothing) {
  test::Server server({"serve", "--mechanism", GetParam(), "--endpoint", "auto"});
  ASSERT_TRUE(server.ready());
  const auto channel = open_waiting_client(GetParam(), server.endpoint());
  MessageStream messages(*channel);
  expect_a_silent_claim_is_cheap(server.pid(),
                                 [&](const auto& b) { messages.send_frame(b.data(), b.size()); });
  channel->close();
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

INSTANTIATE_TEST_SUITE_P(Peer, ChannelMemory,
                         ::testing::Values("sysv-mq", "posix-mq", "sysv-shm", "shm"),
                         test::param_name);

}  // namespace
}  // namespace ipclab
