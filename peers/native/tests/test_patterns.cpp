// The patterns of PROTOCOL.md section 11 beside rr: stream (11.1) and short (11.2):
// ipclab-peer run as the orchestrator runs it: streams over every family of links, windows, the
// stream faults, short connections with their source addresses, and the command line of both.
// (The stream's arithmetic in process: test_stream_arithmetic.cpp.)
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "cli.hpp"
#include "error.hpp"
#include "frame.hpp"
#include "payload.hpp"
#include "support.hpp"
#include "tally.hpp"
#include "transport/transport.hpp"

namespace ipclab {
namespace {

using test::DriveRun;
using test::Pipes;
using test::Server;
using test::TempDir;

// ---- the command line -------------------------------------------------------------------------

std::vector<std::string> stream_args() {
  return {"drive", "--pattern", "stream", "--mechanism", "tcp", "--endpoint", "127.0.0.1:1",
          "--message-size", "1024", "--messages", "100", "--samples-file", "s",
          "--result-file", "r"};
}

std::vector<std::string> plus(std::vector<std::string> v, const std::string& flag,
                              const std::string& value) {
  v.push_back(flag);
  v.push_back(value);
  return v;
}

TEST(StreamCli, TakesItsOwnFlagsOnly) {
  const auto o = std::get<DriveOptions>(parse_command_line(stream_args()));
  EXPECT_EQ(o.pattern, "stream");
  EXPECT_EQ(o.message_size, 1024u);
  EXPECT_EQ(o.messages, 100u);
  EXPECT_EQ(o.windows, 10u);
  EXPECT_EQ(o.warmup, 0u);
  // --windows defaults to min(10, N).
  EXPECT_EQ(std::get<DriveOptions>(parse_command_line([] {
              auto a = stream_args();
              a[10] = "3";  // --messages 3
              return a;
            }()))
                .windows,
            3u);
  EXPECT_EQ(std::get<DriveOptions>(parse_command_line(plus(stream_args(), "--windows", "100")))
                .windows,
            100u);
  for (const char* bad : {"0", "101", "x"})
    EXPECT_THROW(parse_command_line(plus(stream_args(), "--windows", bad)), UsageError) << bad;
  for (const char* rr : {"--request-size", "--response-size", "--iterations",
                         "--warmup-samples-file", "--payload", "--sequence-length"})
    EXPECT_THROW(parse_command_line(plus(stream_args(), rr, "1")), UsageError) << rr;
  EXPECT_THROW(parse_command_line(plus(stream_args(), "--message-size", "0")), UsageError);
  EXPECT_THROW(parse_command_line(plus(stream_args(), "--message-size", "134217729")),
               UsageError);
  auto no_messages = stream_args();
  no_messages.erase(no_messages.begin() + 9, no_messages.begin() + 11);
  EXPECT_THROW(parse_command_line(no_messages), UsageError);
  // And the stream flags without the pattern.
  EXPECT_THROW(parse_command_line({"drive", "--mechanism", "tcp", "--endpoint", "127.0.0.1:1",
                                   "--request-size", "1", "--response-size", "1",
                                   "--iterations", "1", "--samples-file", "s", "--result-file",
                                   "r", "--messages", "5"}),
               UsageError);
  for (const char* fault : {"drop-stream-message", "flip-stream-byte"})
    EXPECT_EQ(std::get<ServeOptions>(parse_command_line({"serve", "--mechanism", "tcp",
                                                         "--endpoint", "127.0.0.1:0", "--fault",
                                                         fault}))
                  .mechanism_name,
              "tcp");
}

// ---- streams, run as the orchestrator runs them -----------------------------------------------

// A server of any frame mechanism, and where and with what its client connects.
struct AnyServer {
  AnyServer(const std::string& mech, const std::vector<std::string>& extra = {}) : mech(mech) {
    std::vector<std::string> args = {"serve", "--mechanism", mech, "--endpoint",
                                     test::server_endpoint(mech, dir, pipes)};
    args.insert(args.end(), extra.begin(), extra.end());
    server.emplace(args, mech == "pipe" ? pipes.server_fds() : std::vector<int>{});
  }
  std::string endpoint() const {
    return mech == "pipe" ? pipes.client_endpoint() : server->endpoint();
  }
  std::vector<int> keep() const {
    return mech == "pipe" ? pipes.client_fds() : std::vector<int>{};
  }
  DriveRun stream(std::uint32_t size, std::uint64_t messages, std::vector<std::string> extra) {
    std::vector<std::string> args = {"drive", "--pattern", "stream", "--mechanism", mech,
                                     "--endpoint", endpoint(), "--message-size",
                                     std::to_string(size), "--messages",
                                     std::to_string(messages), "--samples-file",
                                     dir.file("samples.bin"), "--result-file",
                                     dir.file("result.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    ::unlink(dir.file("result.json").c_str());
    DriveRun run;
    run.child = test::run_peer(args, keep(), 60000);
    if (test::exists(dir.file("result.json")))
      run.result = nlohmann::json::parse(test::read_file(dir.file("result.json")));
    run.samples = test::read_samples(dir.file("samples.bin"));
    return run;
  }

  std::string mech;
  TempDir dir;
  Pipes pipes;
  std::optional<Server> server;
};

void expect_cpu(const nlohmann::json& cpu) {
  for (const char* f : {"user_ns", "sys_ns", "voluntary", "involuntary"}) {
    ASSERT_TRUE(cpu.contains(f)) << f;
    EXPECT_TRUE(cpu[f].is_number_unsigned()) << f;
  }
}

class StreamMechanism : public ::testing::TestWithParam<std::string> {};

TEST_P(StreamMechanism, StreamsWarmUpAndWindowsAndServesRrAfterwards) {
  const std::string mech = GetParam();
  AnyServer s(mech, {"--seed", "5"});
  ASSERT_TRUE(s.server->ready());
  // 1003 messages in 7 windows: six of 143, the last 145. 1027 B: a zero-padded last word;
  // file-poll checks often.
  std::vector<std::string> extra = {"--seed", "5", "--warmup", "20", "--windows", "7"};
  if (mech == "file-poll") extra.insert(extra.end(), {"--poll-interval-us", "100"});
  const std::uint64_t messages = mech.rfind("file", 0) == 0 ? 203 : 1003;
  DriveRun run = s.stream(1027, messages, extra);
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.child.err, "");
  const nlohmann::json want = {{"status", "ok"},    {"pattern", "stream"}, {"messages", messages},
                                {"message_size", 1027}, {"windows", 7},      {"warmup", 20},
                                {"samples", 7},         {"iterations", 0},   {"request_size", 0}};
  for (const auto& [field, value] : want.items()) EXPECT_EQ(run.result[field], value) << field;
  // udp loses datagrams when the sender outruns the receiver: counted, not an error.
  if (mech == "udp") EXPECT_LT(run.result["lost"].get<std::uint64_t>(), messages);
  else EXPECT_EQ(run.result["lost"], 0);
  ASSERT_EQ(run.samples.size(), 7u);
  std::int64_t total = 0;
  for (auto ns : run.samples) {
    EXPECT_GT(ns, 0);
    total += ns;
  }
  EXPECT_EQ(static_cast<std::uint64_t>(total), run.result["stream_ns"].get<std::uint64_t>());
  expect_cpu(run.result["client_cpu"]);
  expect_cpu(run.result["server_cpu"]);

  if (mech != "pipe") {
    // The same server answers an rr client next (its END_ACK is the 8-byte one again), and a
    // second stream of 300 one-byte messages in one window (sequences known modulo 256).
    run = test::drive_bytes(mech, s.endpoint(), s.dir, 16, 16, 5,
                            mech == "file-poll" ? std::vector<std::string>{"--seed", "5",
                                                                           "--poll-interval-us",
                                                                           "100"}
                                                : std::vector<std::string>{"--seed", "5"});
    EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
    run = s.stream(1, 300, {"--seed", "5", "--windows", "1"});
    EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
    EXPECT_EQ(run.samples.size(), 1u);
  }
  s.pipes.close_all();
  s.server->close_stdin();
  const test::ChildResult end = s.server->wait();
  EXPECT_EQ(end.exit_code, 0) << end.err;
  EXPECT_EQ(end.err, "");
}

TEST_P(StreamMechanism, EitherStreamFaultIsAPayloadMismatch) {
  const std::string mech = GetParam();
  if (mech == "udp") GTEST_SKIP() << "a dropped udp message is a loss, not an error (11.1)";
  for (const char* fault : {"drop-stream-message", "flip-stream-byte"}) {
    SCOPED_TRACE(fault);
    AnyServer s(mech, {"--fault", fault});
    ASSERT_TRUE(s.server->ready());
    std::vector<std::string> extra = {"--warmup", "3"};
    if (mech == "file-poll") extra.insert(extra.end(), {"--poll-interval-us", "100"});
    const DriveRun run = s.stream(100, 50, extra);
    EXPECT_EQ(run.child.exit_code, 3) << run.child.err;
    EXPECT_EQ(run.result["error_kind"], "payload-mismatch");
    const std::string why = std::string(fault) == "drop-stream-message"
                                ? "the server received 49 of 50 messages, 1 gap"
                                : "stream checksum";
    EXPECT_NE(run.child.err.find(why), std::string::npos) << run.child.err;
    EXPECT_EQ(run.samples.size(), 0u);  // no window is a sample of a failed stream
    expect_cpu(run.result["server_cpu"]);
  }
}

INSTANTIATE_TEST_SUITE_P(Peer, StreamMechanism,
                         ::testing::Values("tcp", "udp", "uds", "uds-dgram", "pipe", "fifo",
                                           "sysv-mq", "posix-mq", "sysv-shm", "shm", "shm-futex",
                                           "file", "file-poll", "grpc"),
                         test::param_name);

TEST(Stream, DatagramMessagesTakeTheWholeDatagramAndNoMore) {
  AnyServer s("udp");
  ASSERT_TRUE(s.server->ready());
  DriveRun run = s.stream(65508, 10, {});
  EXPECT_EQ(run.child.exit_code, 7) << run.child.err;
  run = s.stream(65507, 10, {});
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  // uds-dgram: its D (4.5) is the largest frame payload plus the header.
  AnyServer d("uds-dgram");
  ASSERT_TRUE(d.server->ready());
  const std::uint64_t limit = std::uint64_t{uds_dgram_max_payload()} + kHeaderSize;
  run = d.stream(static_cast<std::uint32_t>(limit + 1), 3, {});
  EXPECT_EQ(run.child.exit_code, 7) << run.child.err;
  run = d.stream(static_cast<std::uint32_t>(limit), 3, {});
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
}

// Sends raw bytes on a new connection to a tcp server and expects it to close the connection.
void expect_closed_after(const std::string& endpoint, const std::uint8_t* p, std::size_t n) {
  const int fd = test::connect_loopback(SOCK_STREAM, endpoint);
  ASSERT_EQ(::write(fd, p, n), static_cast<ssize_t>(n));
  std::uint8_t byte;
  EXPECT_EQ(::read(fd, &byte, 1), 0);  // closed
  ::close(fd);
}

TEST(Stream, ServerRejectsMalformedStreamFrames) {
  // MARK with wanted != 0, and MARK announcing 0-byte messages, are "bad stream frame"; the
  // server goes on with the next client.
  AnyServer s("tcp");
  ASSERT_TRUE(s.server->ready());
  std::uint8_t mark[kMarkSize];
  encode_header(mark, FrameKind::mark, 1, kMarkPayload, 5);
  encode_mark(mark + kHeaderSize, 16, 1);
  expect_closed_after(s.server->endpoint(), mark, sizeof mark);
  encode_header(mark, FrameKind::mark, 1, kMarkPayload, 0);
  encode_mark(mark + kHeaderSize, 0, 1);
  expect_closed_after(s.server->endpoint(), mark, sizeof mark);
  const DriveRun run = s.stream(16, 10, {});
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  s.server->close_stdin();
  const std::string err = s.server->wait().err;
  std::size_t found = 0;
  for (std::size_t at = err.find("rejected frame: bad stream frame"); at != std::string::npos;
       at = err.find("rejected frame: bad stream frame", at + 1))
    ++found;
  EXPECT_EQ(found, 2u) << err;
}

TEST(Stream, UdpServerRejectsAMarkAboveTheDatagram) {
  AnyServer s("udp");
  ASSERT_TRUE(s.server->ready());
  std::uint8_t mark[kMarkSize];
  encode_header(mark, FrameKind::mark, 0, kMarkPayload, 0);
  encode_mark(mark + kHeaderSize, kUdpMaxMessage + 1, 1);
  const int fd = test::connect_loopback(SOCK_DGRAM, s.server->endpoint());
  ASSERT_EQ(::send(fd, mark, sizeof mark, 0), static_cast<ssize_t>(sizeof mark));
  ::close(fd);
  const DriveRun run = s.stream(kUdpMaxMessage, 5, {});  // the server goes on
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  s.server->close_stdin();
  EXPECT_NE(s.server->wait().err.find("rejected frame: bad stream frame"), std::string::npos);
}

// ---- short ------------------------------------------------------------------------------------

// The TIME_WAIT sockets from 127.1.b.c to this server port, by source address (host order).
std::set<std::uint32_t> time_wait_sources(unsigned server_port) {
  std::set<std::uint32_t> out;
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string slot, local, remote, state;
    f >> slot >> local >> remote >> state;
    if (state != "06") continue;  // TIME_WAIT
    const unsigned rport = std::stoul(remote.substr(9), nullptr, 16);
    if (rport != server_port) continue;
    // The address is the kernel's u32 in hex, network order read as a little-endian number.
    const std::uint32_t addr = ntohl(static_cast<std::uint32_t>(std::stoul(local.substr(0, 8), nullptr, 16)));
    out.insert(addr);
  }
  return out;
}

TEST(Short, TcpConnectsFromRotatingSourceAddresses) {
  AnyServer s("tcp");
  ASSERT_TRUE(s.server->ready());
  const std::string ep = s.server->endpoint();
  const unsigned port = std::stoul(ep.substr(ep.rfind(':') + 1));
  // 2 warm-up + 300 measured connections (0 ... 301), END over connection 302.
  DriveRun run = test::drive_bytes("tcp", ep, s.dir, 100, 7, 300,
                                   {"--pattern", "short", "--warmup", "2"});
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.result["pattern"], "short");
  EXPECT_EQ(run.samples.size(), 300u);
  const auto sources = time_wait_sources(port);
  // The client closes first, so TIME_WAIT is the client's, one per source address: connection
  // i from 127.1.(i / 255).(i mod 255), never .255.
  EXPECT_GE(sources.size(), 303u);
  const auto addr = [](unsigned b, unsigned c) { return (127u << 24) | (1u << 16) | (b << 8) | c; };
  for (auto a : {addr(0, 0), addr(0, 254), addr(1, 0), addr(1, 47)})
    EXPECT_EQ(sources.count(a), 1u) << std::hex << a;
  EXPECT_EQ(sources.count(addr(0, 255)), 0u);
  EXPECT_EQ(sources.count(addr(1, 48)), 0u);
}

class ShortMechanism : public ::testing::TestWithParam<std::string> {};

TEST_P(ShortMechanism, RoundTripsOneConnectionEachAndCountsCorruptionAcrossThem) {
  const std::string mech = GetParam();
  AnyServer s(mech, {"--seed", "3"});
  ASSERT_TRUE(s.server->ready());
  DriveRun run = test::drive_bytes(mech, s.endpoint(), s.dir, 9000, 10, 50,
                                   {"--pattern", "short", "--seed", "3", "--warmup", "5"});
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.child.err, "");
  EXPECT_EQ(run.samples.size(), 50u);
  for (auto ns : run.samples) EXPECT_GT(ns, 0);
  // Requests of another seed: every connection's request is corrupted, and the END over its own
  // connection reports all of them (the responses are empty, so only END_ACK can tell).
  run = test::drive_bytes(mech, s.endpoint(), s.dir, 16, 0, 9,
                          {"--pattern", "short", "--seed", "4"});
  EXPECT_EQ(run.child.exit_code, 3) << run.child.err;
  EXPECT_NE(run.child.err.find("server received 9 corrupted request payloads"),
            std::string::npos)
      << run.child.err;
  // The count starts again after that END.
  run = test::drive_bytes(mech, s.endpoint(), s.dir, 16, 0, 3, {"--pattern", "short", "--seed", "3"});
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
}

INSTANTIATE_TEST_SUITE_P(Peer, ShortMechanism,
                         ::testing::Values("tcp", "uds", "sysv-mq", "posix-mq"),
                         test::param_name);

}  // namespace
}  // namespace ipclab
