// One-way short connections (PROTOCOL.md 11.2, --one-way): REQUEST and END carry flags
// NO_REPLY, the server counts the requests without answering them and answers END with a 16-byte
// END_ACK (corrupted, received). The header rule in process, the responder's END_ACK layout, then
// ipclab-peer run as the orchestrator runs it: every mechanism with connections, the server's
// counts over raw connections, a stand-in server that lost a request, the command line.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include <gtest/gtest.h>

#include "frame.hpp"
#include "payload.hpp"
#include "responder.hpp"
#include "support.hpp"

namespace ipclab {
namespace {

using test::DriveRun;
using test::Server;
using test::TempDir;

const std::vector<std::string> kOneWay = {"--pattern", "short", "--one-way"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Header header(FrameKind kind, std::uint16_t flags, std::uint32_t length = 0) {
  std::uint8_t b[kHeaderSize];
  encode_header(b, kind, 5, length, 0, flags);
  return decode_header(b);
}

TEST(OneWayFrame, NoReplyOnlyOnRequestAndEnd) {
  EXPECT_EQ(check_request_header(header(FrameKind::request, kNoReply, 16)), nullptr);
  EXPECT_EQ(check_request_header(header(FrameKind::end, kNoReply)), nullptr);
  EXPECT_STREQ(check_request_header(header(FrameKind::request, 2, 16)), "bad flags");
  EXPECT_STREQ(check_request_header(header(FrameKind::end, 3)), "bad flags");
  EXPECT_STREQ(check_request_header(header(FrameKind::mark, kNoReply, kMarkPayload)), "bad flags");
  // Kind 5 (DATA until contract 4) is no frame a server takes, with or without flags.
  EXPECT_STREQ(check_request_header(header(static_cast<FrameKind>(5), kNoReply)),
               "unexpected kind");
  // A RESPONSE is no frame a server takes: check 3 (kind) comes before check 4 (flags).
  EXPECT_STREQ(check_request_header(header(FrameKind::response, kNoReply)), "unexpected kind");
  // The client takes no flags on a RESPONSE or END_ACK.
  EXPECT_EQ(*check_reply_header(header(FrameKind::response, kNoReply), FrameKind::response, 5, 0, 0),
            "flags: expected 0, received 1");
  EXPECT_EQ(*check_reply_header(header(FrameKind::end_ack, kNoReply), FrameKind::end_ack, 5, 0, 0),
            "flags: expected 0, received 1");
  // The NO_REPLY REQUEST on the wire: flags at bytes 6-7, little-endian.
  std::uint8_t b[kHeaderSize];
  encode_header(b, FrameKind::request, 1, 16, 0, kNoReply);
  EXPECT_EQ(test::to_hex(b, kHeaderSize), "4950434c0101010001000000000000001000000000000000");
}

// A REQUEST with flags NO_REPLY as a client sends it, and whether the responder found it
// corrupted (after_send).
bool take_one_way(Responder& r, std::uint64_t seq, std::uint64_t seed, std::uint64_t& corrupted) {
  std::vector<std::uint8_t> payload(40);
  fill_base(seed, PayloadStream::request, payload.data(), payload.size());
  stamp_in_place(payload.data(), payload.size(), seq);
  const Header h = header(FrameKind::request, kNoReply, 40);
  Header at = h;
  at.sequence = seq;
  EXPECT_EQ(r.answer(at, payload.data(), corrupted).size, 0u) << "a one-way REQUEST is answered";
  return r.after_send(at, payload.data());
}

TEST(OneWayResponder, EndAckCarriesCorruptedThenReceived) {
  ServerConfig config;
  config.seed = 1;
  Responder r(config);
  std::uint64_t corrupted = 0;
  for (std::uint64_t seq = 0; seq < 3; ++seq)
    if (take_one_way(r, seq, seq == 1 ? 2 : 1, corrupted)) ++corrupted;
  EXPECT_EQ(corrupted, 1u);
  Header end = header(FrameKind::end, kNoReply);
  end.sequence = 3;
  Responder::Answer a = r.answer(end, nullptr, corrupted);
  ASSERT_EQ(a.size, kOneWayAckSize);
  EXPECT_EQ(test::to_hex(a.data, a.size),
            "4950434c01040000030000000000000010000000000000000100000000000000"
            "0300000000000000");
  EXPECT_EQ(corrupted, 0u);
  // A plain END keeps the 8-byte form; the counts start again after every END.
  take_one_way(r, 4, 1, corrupted);
  end.flags = 0;
  end.sequence = 5;
  a = r.answer(end, nullptr, corrupted);
  ASSERT_EQ(a.size, kEndAckSize);
  EXPECT_EQ(load_le64(a.data + kHeaderSize), 0u);
  end.flags = kNoReply;
  a = r.answer(end, nullptr, corrupted);
  ASSERT_EQ(a.size, kOneWayAckSize);
  EXPECT_EQ(load_le64(a.data + kHeaderSize + 8), 0u);
}

TEST(OneWayResponder, OneWayRequestsLeaveTheFaultyResponseAlone) {
  // --fault flip-response-byte: a one-way REQUEST between two round trips must not undo a flip
  // it never made (the response frame is restored after each send).
  ServerConfig config;
  config.flip_response_byte = true;
  Responder r(config);
  std::uint64_t corrupted = 0;
  std::vector<std::uint8_t> base(8);
  fill_base(1, PayloadStream::response, base.data(), base.size());
  for (std::uint64_t seq : {0u, 2u}) {
    const Header h = [&] {
      Header x = header(FrameKind::request, 0);
      x.sequence = seq;
      x.wanted = 8;
      return x;
    }();
    const Responder::Answer a = r.answer(h, nullptr, corrupted);
    ASSERT_EQ(a.size, kHeaderSize + 8);
    std::vector<std::uint8_t> want = base;
    stamp_in_place(want.data(), want.size(), seq);
    want.back() ^= 1;
    EXPECT_EQ(test::to_hex(a.data + kHeaderSize, 8), test::to_hex(want.data(), 8)) << seq;
    r.after_send(h, a.data);  // h.length 0: an empty request, never corrupted
    if (seq == 0) take_one_way(r, 1, 1, corrupted);
  }
}

// ---- against the peer's own server ----------------------------------------------------------

class OneWayMechanism : public ::testing::TestWithParam<std::string> {};

TEST_P(OneWayMechanism, SendsWithoutReadingAndTheServerCountsAcrossConnections) {
  const std::string mech = GetParam();
  TempDir dir;
  test::Pipes pipes;
  Server server({"serve", "--mechanism", mech, "--endpoint",
                 test::server_endpoint(mech, dir, pipes), "--seed", "4"});
  ASSERT_TRUE(server.ready());
  const std::string ep = server.endpoint();
  // --response-size absent: 0.
  DriveRun run = test::drive(mech, ep, dir, 50,
                             with(kOneWay, {"--request-size", "9000", "--warmup", "3", "--seed",
                                            "4", "--warmup-samples-file", dir.file("w.bin")}));
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.child.err, "");
  EXPECT_EQ(run.result["pattern"], "short");
  EXPECT_EQ(run.result["response_size"], 0);
  EXPECT_EQ(run.samples.size(), 50u);
  EXPECT_EQ(test::read_samples(dir.file("w.bin")).size(), 3u);
  for (auto ns : run.samples) EXPECT_GT(ns, 0);
  // Another seed: every request corrupted, counted across the connections until END.
  run = test::drive_bytes(mech, ep, dir, 16, 0, 9, with(kOneWay, {"--seed", "5"}));
  EXPECT_EQ(run.child.exit_code, 3) << run.child.err;
  EXPECT_NE(run.child.err.find("server received 9 corrupted request payloads"), std::string::npos)
      << run.child.err;
  // The counts start again after that END; two-way short still runs against the same server.
  run = test::drive(mech, ep, dir, 3, with(kOneWay, {"--request-size", "0", "--seed", "4"}));
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  run = test::drive_bytes(mech, ep, dir, 16, 8, 3, {"--pattern", "short", "--seed", "4"});
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  server.close_stdin();
  EXPECT_EQ(server.wait().err, "");
}

INSTANTIATE_TEST_SUITE_P(Peer, OneWayMechanism,
                         ::testing::Values("tcp", "uds", "sysv-mq", "posix-mq"),
                         test::param_name);

void send_all(int fd, const std::uint8_t* p, std::size_t n) {
  ASSERT_EQ(::write(fd, p, n), static_cast<ssize_t>(n));
}

// END (flags as given) over a new tcp connection; the END_ACK's u64 fields.
std::vector<std::uint64_t> end_over(const std::string& ep, std::uint64_t seq, std::uint16_t flags) {
  const int fd = test::connect_loopback(SOCK_STREAM, ep);
  std::uint8_t b[kOneWayAckSize] = {};
  encode_header(b, FrameKind::end, seq, 0, 0, flags);
  send_all(fd, b, kHeaderSize);
  const std::size_t want = flags != 0 ? kOneWayAckSize : kEndAckSize;
  std::size_t got = 0;
  while (got < want) {
    const ssize_t n = ::read(fd, b + got, want - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  EXPECT_EQ(got, want);
  const Header h = decode_header(b);
  EXPECT_EQ(h.kind, static_cast<std::uint8_t>(FrameKind::end_ack));
  EXPECT_EQ(h.flags, 0);
  EXPECT_EQ(h.sequence, seq);
  EXPECT_EQ(h.length, want - kHeaderSize);
  std::vector<std::uint64_t> fields;
  for (std::size_t off = kHeaderSize; off < want; off += 8) fields.push_back(load_le64(b + off));
  return fields;
}

TEST(OneWayServer, CountsRawRequestsAndAnswersNone) {
  Server server({"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0"});
  ASSERT_TRUE(server.ready());
  const std::string ep = server.endpoint();
  for (std::uint64_t seq = 0; seq < 3; ++seq) {
    std::vector<std::uint8_t> f(kHeaderSize + 40);
    encode_header(f.data(), FrameKind::request, seq, 40, 0, kNoReply);
    fill_base(1, PayloadStream::request, f.data() + kHeaderSize, 40);
    stamp_in_place(f.data() + kHeaderSize, 40, seq);
    if (seq == 1) f.back() ^= 1;
    const int fd = test::connect_loopback(SOCK_STREAM, ep);
    send_all(fd, f.data(), f.size());
    ::shutdown(fd, SHUT_WR);
    std::uint8_t byte;
    EXPECT_EQ(::read(fd, &byte, 1), 0) << "nothing comes back";
    ::close(fd);
  }
  EXPECT_EQ(end_over(ep, 3, kNoReply), (std::vector<std::uint64_t>{1, 3}));
  EXPECT_EQ(end_over(ep, 4, 0), (std::vector<std::uint64_t>{0}));
  EXPECT_EQ(end_over(ep, 5, kNoReply), (std::vector<std::uint64_t>{0, 0}));
  server.close_stdin();
  EXPECT_EQ(server.wait().err, "");
}

TEST(OneWayServer, NoReplyOverDatagramsOrOnMarkIsBadFlags) {
  Server udp({"serve", "--mechanism", "udp", "--endpoint", "127.0.0.1:0"});
  ASSERT_TRUE(udp.ready());
  std::uint8_t b[kHeaderSize];
  encode_header(b, FrameKind::request, 0, 0, 0, kNoReply);
  const int u = test::connect_loopback(SOCK_DGRAM, udp.endpoint());
  send_all(u, b, sizeof b);
  ::close(u);
  Server tcp({"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0"});
  ASSERT_TRUE(tcp.ready());
  encode_header(b, FrameKind::mark, 0, kMarkPayload, 0, kNoReply);
  const int t = test::connect_loopback(SOCK_STREAM, tcp.endpoint());
  send_all(t, b, sizeof b);
  std::uint8_t byte;
  EXPECT_EQ(::read(t, &byte, 1), 0);  // rejected: closed
  ::close(t);
  for (Server* s : {&udp, &tcp}) {
    ::usleep(100'000);
    s->close_stdin();
    EXPECT_NE(s->wait().err.find("rejected frame: bad flags"), std::string::npos);
  }
}

TEST(OneWayClient, FewerRequestsReceivedIsAProtocolError) {
  // A stand-in server that reports one request fewer than it was sent.
  test::Loopback listener = test::bind_loopback(SOCK_STREAM);
  ASSERT_EQ(::listen(listener.fd, 64), 0);
  std::thread stand_in([fd = listener.fd] {
    for (std::uint64_t taken = 0;;) {
      const int c = ::accept(fd, nullptr, nullptr);
      if (c < 0) return;
      std::uint8_t b[kHeaderSize + 16];
      std::size_t got = 0;
      while (got < kHeaderSize || got < kHeaderSize + load_le32(b + kOffLength)) {
        const ssize_t n = ::read(c, b + got, sizeof b - got);
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
      }
      if (got < kHeaderSize) {  // the client's first connection, closed before the first REQUEST
        ::close(c);
        continue;
      }
      const Header h = decode_header(b);
      if (h.kind == static_cast<std::uint8_t>(FrameKind::end)) {
        RequestHandler::one_way_end_ack(b, h.sequence, 0, taken - 1);
        send_all(c, b, kOneWayAckSize);
        ::close(c);
        return;
      }
      ++taken;
      ::close(c);
    }
  });
  TempDir dir;
  const DriveRun run = test::drive_bytes("tcp", listener.endpoint, dir, 16, 0, 10, kOneWay);
  stand_in.join();
  ::close(listener.fd);
  EXPECT_EQ(run.child.exit_code, 4) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "protocol");
  EXPECT_NE(run.child.err.find("received 9 one-way requests, the client sent 10"),
            std::string::npos)
      << run.child.err;
}

TEST(OneWayCli, ShortOnlyNoResponseAndFramesOnly) {
  TempDir dir;
  // --response-size other than 0, another pattern: usage; rest has no section 2 frames.
  EXPECT_EQ(test::drive_bytes("tcp", "127.0.0.1:1", dir, 1, 5, 1, kOneWay).child.exit_code, 2);
  EXPECT_EQ(test::drive_bytes("tcp", "127.0.0.1:1", dir, 1, 0, 1, {"--one-way"}).child.exit_code,
            2);
  EXPECT_EQ(test::drive_bytes("rest", "127.0.0.1:1", dir, 1, 0, 1, kOneWay).child.exit_code, 7);
  // Without --one-way, --response-size is still required.
  EXPECT_EQ(test::drive("tcp", "127.0.0.1:1", dir, 1, {"--pattern", "short", "--request-size", "1"})
                .child.exit_code,
            2);
}

}  // namespace
}  // namespace ipclab
