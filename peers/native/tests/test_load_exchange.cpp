// A load server's blocking models (PROTOCOL.md 11.5.1) over one connection, through
// burst/exchange.cpp's serve: a client that closes between frames without an END ends the
// connection cleanly, and the server answers nothing more (found by the load_server fuzz target:
// the close was taken for a frame, answered with a RESPONSE to sequence 0, and the buffer was
// then moved by -24 bytes, a crash).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

#include "burst/exchange.hpp"
#include "burst/serving.hpp"
#include "frame.hpp"
#include "payload.hpp"

namespace ipclab::burst {
namespace {

std::vector<std::uint8_t> request_frame(std::uint64_t seq, std::uint32_t length,
                                        std::uint32_t wanted) {
  std::vector<std::uint8_t> f(kHeaderSize);
  encode_header(f.data(), FrameKind::request, seq, length, wanted);
  const auto p = make_payload(1, PayloadStream::request, seq, length);
  f.insert(f.end(), p.begin(), p.end());
  return f;
}

// Serves `input` (the client's side shut after it) with the load exchange; `answers` gets every
// byte the server sent.
ConnError serve_load(const std::vector<std::uint8_t>& input, std::vector<std::uint8_t>& answers) {
  int sv[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  if (!input.empty()) {
    EXPECT_EQ(::send(sv[0], input.data(), input.size(), 0), ssize_t(input.size()));
  }
  ::shutdown(sv[0], SHUT_WR);
  ServeOptions options;
  Server server{
      .options = options, .sockets = kTcpSockets, .exchange = kLoadExchange, .endpoint = {}};
  ConnTimes times;
  const ConnError e = kLoadExchange.serve(server, sv[1], times);
  ::close(sv[1]);
  std::uint8_t buf[4096];
  for (ssize_t n; (n = ::recv(sv[0], buf, sizeof buf, 0)) > 0;)
    answers.insert(answers.end(), buf, buf + n);
  ::close(sv[0]);
  return e;
}

TEST(LoadExchange, AConnectionClosedBeforeAnyFrameGetsNoAnswer) {
  std::vector<std::uint8_t> answers;
  EXPECT_EQ(serve_load({}, answers), ConnError::none);
  EXPECT_TRUE(answers.empty());
}

TEST(LoadExchange, AConnectionClosedBetweenFramesEndsAfterTheLastResponse) {
  std::vector<std::uint8_t> input = request_frame(0, 16, 8);
  const auto second = request_frame(1, 0, 4);
  input.insert(input.end(), second.begin(), second.end());
  std::vector<std::uint8_t> answers;
  EXPECT_EQ(serve_load(input, answers), ConnError::none);
  ASSERT_EQ(answers.size(), (kHeaderSize + 8) + (kHeaderSize + 4));  // two RESPONSEs, no third
  EXPECT_EQ(decode_header(answers.data() + kHeaderSize + 8).sequence, 1u);
}

}  // namespace
}  // namespace ipclab::burst
