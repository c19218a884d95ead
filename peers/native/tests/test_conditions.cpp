// Contract 6's condition flags (section 1): --read-size and --backlog (serve), --source,
// --value-range, --records and --mock (drive): their parsing, and each one's effect, observed
// from outside where it can be (the server's read calls in /proc/PID/io, the listen queue by
// connecting, the clients' source addresses in /proc/net/tcp), else on the pure parts.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "error.hpp"
#include "frame.hpp"
#include "payload.hpp"
#include "server.hpp"
#include "structs.hpp"
#include "support.hpp"
#include "tally.hpp"

namespace ipclab {
namespace {

using test::DriveRun;
using test::Server;
using test::TempDir;

std::vector<std::string> serve_args(std::vector<std::string> extra, const char* mech = "tcp") {
  std::vector<std::string> a = {"serve", "--mechanism", mech, "--endpoint", "127.0.0.1:0"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// A drive command line of the given payload (bytes: sizes 1 and 1) and pattern, then extra.
std::vector<std::string> drive_args(std::vector<std::string> extra, const char* payload = "bytes",
                                    const char* pattern = "rr") {
  std::vector<std::string> a = {"drive", "--mechanism", "rest", "--endpoint", "127.0.0.1:1",
                                "--iterations", "1", "--samples-file", "s", "--result-file", "r",
                                "--pattern", pattern, "--payload", payload};
  if (std::string(payload) == "bytes") a.insert(a.end(), {"--request-size", "1",
                                                          "--response-size", "1"});
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

ServeOptions serve_options(std::vector<std::string> extra, const char* mech = "tcp") {
  return std::get<ServeOptions>(parse_command_line(serve_args(std::move(extra), mech)));
}
DriveOptions drive_options(std::vector<std::string> extra, const char* payload = "bytes",
                           const char* pattern = "rr") {
  return std::get<DriveOptions>(parse_command_line(drive_args(std::move(extra), payload,
                                                              pattern)));
}

// ---- parsing ---------------------------------------------------------------------------------

TEST(Conditions, ReadSizeParses) {
  EXPECT_EQ(serve_options({}).read_size, 0u);
  EXPECT_EQ(serve_options({"--read-size", "0"}).read_size, 0u);
  EXPECT_EQ(serve_options({"--read-size", "1024"}).read_size, 1024u);
  EXPECT_EQ(serve_options({"--read-size", "134217728"}).read_size, 134217728u);
  for (const char* bad : {"134217729", "-1", "1k", "", " 1", "0x10", "99999999999999999999"})
    EXPECT_THROW(parse_command_line(serve_args({"--read-size", bad})), UsageError) << bad;
  EXPECT_THROW(parse_command_line(serve_args({"--read-size", "1", "--read-size", "1"})),
               UsageError);
  EXPECT_THROW(parse_command_line(serve_args({"--read-size"})), UsageError);
  EXPECT_THROW(parse_command_line(drive_args({"--read-size", "1"})), UsageError);  // serve's
}

TEST(Conditions, BacklogParsesForTheRrServerWithTheBurstServersLimits) {
  EXPECT_EQ(serve_options({}).backlog, 512u);
  EXPECT_FALSE(serve_options({}).backlog_given);
  const ServeOptions o = serve_options({"--backlog", "50"});
  EXPECT_EQ(o.backlog, 50u);
  EXPECT_TRUE(o.backlog_given);
  EXPECT_EQ(serve_options({"--backlog", "65535"}, "uds").backlog, 65535u);
  for (const char* bad : {"0", "65536", "-5", "5x", ""})
    EXPECT_THROW(parse_command_line(serve_args({"--backlog", bad})), UsageError) << bad;
  EXPECT_THROW(parse_command_line(drive_args({"--backlog", "5"})), UsageError);  // serve's
}

TEST(Conditions, SourceParsesForShortOnly) {
  EXPECT_TRUE(drive_options({}, "bytes", "short").source_rotate);
  EXPECT_TRUE(drive_options({"--source", "rotate"}, "bytes", "short").source_rotate);
  EXPECT_FALSE(drive_options({"--source", "one"}, "bytes", "short").source_rotate);
  EXPECT_THROW(parse_command_line(drive_args({"--source", "two"}, "bytes", "short")),
               UsageError);
  for (const char* value : {"one", "rotate"})  // another pattern: a usage error, either value
    EXPECT_THROW(parse_command_line(drive_args({"--source", value})), UsageError) << value;
  EXPECT_THROW(parse_command_line(drive_args({"--source", "one", "--source", "one"}, "bytes",
                                             "short")),
               UsageError);
}

TEST(Conditions, ValueRangeAndRecordsParseForStructuredPayloadsOnly) {
  const DriveOptions plain = drive_options({}, "small");
  EXPECT_EQ(plain.value_range, ValueRange::full);
  EXPECT_FALSE(plain.records_per_call);
  for (const char* kind : {"small", "medium", "large"}) {
    const DriveOptions o = drive_options({"--value-range", "non-negative", "--records",
                                          "per-call"}, kind);
    EXPECT_EQ(o.value_range, ValueRange::non_negative);
    EXPECT_TRUE(o.records_per_call);
  }
  // The defaults may be named with bytes; another value is a usage error, as is a bad one.
  EXPECT_EQ(drive_options({"--value-range", "full", "--records", "one"}).value_range,
            ValueRange::full);
  EXPECT_THROW(parse_command_line(drive_args({"--value-range", "non-negative"})), UsageError);
  EXPECT_THROW(parse_command_line(drive_args({"--records", "per-call"})), UsageError);
  EXPECT_THROW(parse_command_line(drive_args({"--value-range", "positive"}, "small")),
               UsageError);
  EXPECT_THROW(parse_command_line(drive_args({"--records", "many"}, "small")), UsageError);
  EXPECT_THROW(parse_command_line(drive_args({"--records", "one", "--records", "one"}, "small")),
               UsageError);
}

TEST(Conditions, MockParses) {
  EXPECT_FALSE(drive_options({}).mock_new_array);
  EXPECT_FALSE(drive_options({"--mock", "copy"}).mock_new_array);
  EXPECT_TRUE(drive_options({"--mock", "new-array"}).mock_new_array);
  EXPECT_THROW(parse_command_line(drive_args({"--mock", "new"})), UsageError);
  EXPECT_THROW(parse_command_line(drive_args({"--mock"})), UsageError);
}

// ---- --read-size -------------------------------------------------------------------------------

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

// ---- --backlog -------------------------------------------------------------------------------

// Connects without blocking and waits up to 300 ms: whether the connection was made (a full
// accept queue drops a TCP SYN, so the connection waits for its retransmission; over a Unix
// socket the connect fails at once with EAGAIN). The socket is added to `open`.
bool connects(int family, const std::string& where, std::vector<int>& open) {
  const int fd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  open.push_back(fd);
  int rc;
  if (family == AF_UNIX) {
    sockaddr_un sun{};
    sun.sun_family = AF_UNIX;
    std::snprintf(sun.sun_path, sizeof sun.sun_path, "%s", where.c_str());
    rc = ::connect(fd, reinterpret_cast<sockaddr*>(&sun), sizeof sun);
  } else {
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    sin.sin_port = htons(static_cast<std::uint16_t>(std::stoul(where.substr(where.rfind(':') + 1))));
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    rc = ::connect(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin);
  }
  if (rc == 0) return true;
  if (errno != EINPROGRESS) return false;
  pollfd p{fd, POLLOUT, 0};
  if (::poll(&p, 1, 300) != 1) return false;
  int err = 0;
  socklen_t len = sizeof err;
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
  return err == 0;
}

// How many of six further connections the rr server's accept queue takes while it serves a
// first one that sends nothing: the backlog + 1 (Linux), or all six with the default 512.
int queued_connections(const std::string& mech, const std::vector<std::string>& extra) {
  TempDir dir;
  test::Pipes pipes;
  std::vector<std::string> args = {"serve", "--mechanism", mech, "--endpoint",
                                    test::server_endpoint(mech, dir, pipes)};
  args.insert(args.end(), extra.begin(), extra.end());
  Server server(args);
  EXPECT_TRUE(server.ready());
  if (!server.ready()) return -1;
  const int family = mech == "uds" ? AF_UNIX : AF_INET;
  std::vector<int> open;
  EXPECT_TRUE(connects(family, server.endpoint(), open));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // accepted: the server waits
  int made = 0;
  for (int i = 0; i < 6; ++i) made += connects(family, server.endpoint(), open) ? 1 : 0;
  for (const int fd : open) ::close(fd);
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
  return made;
}

TEST(Backlog, TheRrServerListensWithIt) {
  for (const char* mech : {"tcp", "uds"}) {
    SCOPED_TRACE(mech);
    const int small = queued_connections(mech, {"--backlog", "1"});
    EXPECT_GE(small, 1);
    EXPECT_LE(small, 3);  // 2 expected: the queue holds backlog + 1
    EXPECT_EQ(queued_connections(mech, {}), 6);
    EXPECT_EQ(queued_connections(mech, {"--backlog", "50"}), 6);
  }
}

TEST(Backlog, ElsewhereUnsupported) {
  TempDir dir;
  test::Pipes pipes;
  for (const char* mech : {"udp", "pipe", "fifo", "sysv-mq", "rest"}) {
    SCOPED_TRACE(mech);
    const std::string rpc = std::string(mech) == "rest" ? "127.0.0.1:0" : "";
    Server server({"serve", "--mechanism", mech, "--endpoint",
                   rpc.empty() ? test::server_endpoint(mech, dir, pipes) : rpc, "--backlog",
                   "512"},
                  std::string(mech) == "pipe" ? pipes.server_fds() : std::vector<int>{});
    EXPECT_FALSE(server.ready());
    const test::ChildResult end = server.wait();
    EXPECT_EQ(end.exit_code, 7) << end.err;
    EXPECT_NE(end.err.find("--backlog"), std::string::npos) << end.err;
  }
}

// ---- --source ----------------------------------------------------------------------------------

// The source addresses of the TCP connections to 127.0.0.1:port in /proc/net/tcp (TIME_WAIT
// included; the client, which closes first, keeps it), as "A.B.C.D:PORT".
std::set<std::string> sources_of(const std::string& endpoint) {
  const unsigned port = std::stoul(endpoint.substr(endpoint.rfind(':') + 1));
  std::istringstream table(test::read_file("/proc/net/tcp"));
  std::string line;
  std::getline(table, line);  // the heading
  std::set<std::string> out;
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote;
    fields >> slot >> local >> remote;
    const auto remote_ip = static_cast<std::uint32_t>(std::stoul(remote.substr(0, 8), nullptr, 16));
    if (std::stoul(remote.substr(9), nullptr, 16) != port || remote_ip != htonl(INADDR_LOOPBACK))
      continue;
    // The address is printed as the 32-bit word in memory: network order read natively.
    in_addr a{static_cast<in_addr_t>(std::stoul(local.substr(0, 8), nullptr, 16))};
    out.insert(std::string(::inet_ntoa(a)) + ":" +
               std::to_string(std::stoul(local.substr(9), nullptr, 16)));
  }
  return out;
}

// The new sources of `iterations` short connections with `extra` to a fresh tcp server.
std::vector<std::string> short_sources(const std::vector<std::string>& extra) {
  TempDir dir;
  Server server(serve_args({}));
  EXPECT_TRUE(server.ready());
  if (!server.ready()) return {};
  const std::set<std::string> before = sources_of(server.endpoint());
  std::vector<std::string> args = {"--pattern", "short", "--warmup", "2"};
  args.insert(args.end(), extra.begin(), extra.end());
  const DriveRun run = test::drive_bytes("tcp", server.endpoint(), dir, 10, 10, 20, args);
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.samples.size(), 20u);
  std::vector<std::string> fresh;
  for (const std::string& s : sources_of(server.endpoint()))
    if (before.count(s) == 0) fresh.push_back(s);
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
  return fresh;
}

// 2 warm-up connections, 20 measured and END's, in TIME_WAIT at the client (it closes first);
// and the link's first connection, made by the mechanism's row before the pattern starts (not
// bound, closed untimed), from 127.0.0.1 either way.
TEST(Source, OneConnectsFromTheKernelsChoiceAndRotateFrom127_1) {
  const auto count = [](const std::vector<std::string>& sources, const char* prefix) {
    std::size_t n = 0;
    for (const std::string& s : sources) n += s.rfind(prefix, 0) == 0 ? 1 : 0;
    return n;
  };
  const std::vector<std::string> one = short_sources({"--source", "one"});
  EXPECT_GE(one.size(), 23u);
  EXPECT_EQ(count(one, "127.0.0.1:"), one.size());
  for (const auto& extra : {std::vector<std::string>{}, {"--source", "rotate"}}) {
    const std::vector<std::string> rotated = short_sources(extra);
    EXPECT_GE(count(rotated, "127.1."), 23u);
    EXPECT_LE(count(rotated, "127.0.0.1:"), 1u);
    EXPECT_EQ(count(rotated, "127.1.") + count(rotated, "127.0.0.1:"), rotated.size());
  }
}

TEST(Source, OneElsewhereUnsupported) {
  TempDir dir;
  const std::vector<std::string> one = {"--pattern", "short", "--source", "one"};
  EXPECT_EQ(test::drive_bytes("uds", dir.file("x"), dir, 1, 1, 1, one).child.exit_code, 7);
  EXPECT_EQ(test::drive_bytes("rest", "127.0.0.1:1", dir, 1, 1, 1, one).child.exit_code, 7);
  EXPECT_EQ(test::drive_bytes("posix-mq", "posix:/ipclab-none", dir, 1, 1, 1, one).child.exit_code, 7);
  // rotate is today's short everywhere; another pattern is a usage error (above).
  EXPECT_EQ(test::drive_bytes("tcp", "127.0.0.1:1", dir, 1, 1, 1, {"--source", "one"})
                .child.exit_code, 2);
}

// ---- --value-range, --records ------------------------------------------------------------------

template <class F>
void each_int(const Record& r, F&& f) {
  for (std::size_t i = 0; i < r.n.size(); ++i) f("n" + std::to_string(i + 1), r.n[i]);
  for (std::size_t i = 0; i < r.li.size(); ++i)
    for (std::size_t j = 0; j < r.li[i].size(); ++j)
      f("li" + std::to_string(i + 1) + "[" + std::to_string(j) + "]", r.li[i][j]);
}

TEST(ValueRange, NonNegativeIntsAreTheLow31BitsAndTheRestIsTheSame) {
  bool any_negative = false;
  for (const PayloadKind kind : {PayloadKind::small, PayloadKind::medium, PayloadKind::large}) {
    for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{42}, UINT64_MAX}) {
      SCOPED_TRACE(std::string(payload_kind_name(kind)) + " " + std::to_string(seed));
      const Record full = make_record(seed, kind, 7);
      const Record nn = make_record(seed, kind, 7, ValueRange::non_negative);
      EXPECT_EQ(make_record(seed, kind, 7, ValueRange::full), full);
      std::vector<std::int32_t> want;
      each_int(full, [&](const std::string&, std::int32_t v) {
        any_negative = any_negative || v < 0;
        want.push_back(static_cast<std::int32_t>(static_cast<std::uint32_t>(v) & 0x7FFFFFFFu));
      });
      std::size_t k = 0;
      each_int(nn, [&](const std::string& name, std::int32_t v) {
        EXPECT_GE(v, 0) << name;
        ASSERT_LT(k, want.size());
        EXPECT_EQ(v, want[k++]) << name;
      });
      EXPECT_EQ(k, want.size());
      EXPECT_EQ(nn.s, full.s);
      EXPECT_EQ(nn.b, full.b);
      EXPECT_EQ(nn.d, full.d);
      EXPECT_EQ(nn.ls, full.ls);
      EXPECT_EQ(nn.ld, full.ld);
    }
  }
  EXPECT_TRUE(any_negative);  // the full range does draw negative ints
}

// Small records drawn here field by field from one splitmix64 (10.2), independently of
// structs.cpp: record 2 must start where record 1 left the state.
std::vector<Record> small_records_by_hand(std::uint64_t seed, std::uint32_t len, int count) {
  std::uint64_t state = seed ^ (3 * kGolden);
  const auto next = [&state] {
    state += kGolden;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  const auto an_int = [&] { return static_cast<std::int32_t>(next() & 0xFFFFFFFFu); };
  std::vector<Record> out(count);
  for (Record& r : out) {
    r.n = {an_int(), an_int()};
    std::string s(4 + next() % 29, ' ');
    for (char& c : s) c = kAlphabet[next() % 62];
    r.s = {s};
    r.b = {(next() & 1) == 1};
    r.li.resize(1);
    for (std::uint32_t j = 0; j < len; ++j) r.li[0].push_back(an_int());
  }
  return out;
}

TEST(Records, PerCallContinuesTheStreamFromTodaysRecord) {
  const std::vector<Record> by_hand = small_records_by_hand(9, 4, 3);
  RecordStream stream(9, PayloadKind::small, 4);
  Record r;
  for (int k = 0; k < 3; ++k) {
    stream.next(r);  // into the same record, as the client does
    EXPECT_EQ(r, by_hand[k]) << "record " << k + 1;
  }
  for (const PayloadKind kind : {PayloadKind::small, PayloadKind::medium, PayloadKind::large}) {
    SCOPED_TRACE(payload_kind_name(kind));
    for (const ValueRange range : {ValueRange::full, ValueRange::non_negative}) {
      RecordStream reused(5, kind, 6, range), fresh(5, kind, 6, range), again(5, kind, 6, range);
      Record one, second;
      reused.next(one);
      EXPECT_EQ(one, make_record(5, kind, 6, range));  // record 1 is today's
      Record previous = one;
      for (int k = 2; k <= 6; ++k) {
        reused.next(one);
        EXPECT_NE(one, previous) << "record " << k;
        previous = one;
      }
      // A record written over equals one made new; the same seed gives the same sequence.
      for (int k = 1; k <= 6; ++k) {
        Record made;
        fresh.next(made);
        again.next(second);
        EXPECT_EQ(made, second) << "record " << k;
        if (k == 6) {
          EXPECT_EQ(made, one);
        }
      }
      if (range == ValueRange::non_negative) {
        each_int(one, [](const std::string& name, std::int32_t v) { EXPECT_GE(v, 0) << name; });
      }
    }
  }
  Record other;
  RecordStream(10, PayloadKind::small, 4).next(other);
  EXPECT_NE(other, by_hand[0]);
}

class RecordsRpc : public ::testing::TestWithParam<std::string> {};

// Per-call records and non-negative ints through every framework against this peer's server:
// the echo of each call is compared with that call's record, so a message the session converts
// into again (and keeps old fields of) fails as a payload mismatch.
TEST_P(RecordsRpc, PerCallRecordsAndNonNegativeIntsRoundTrip) {
  const std::string mech = GetParam();
  TempDir dir;
  Server server({"serve", "--mechanism", mech, "--endpoint", "127.0.0.1:0", "--seed", "3"});
  ASSERT_TRUE(server.ready());
  for (const char* kind : {"small", "medium", "large"}) {
    for (const auto& flags : std::vector<std::vector<std::string>>{
             {"--records", "per-call", "--sequence-length", "4"},
             {"--value-range", "non-negative", "--sequence-length", "4"},
             {"--records", "per-call", "--value-range", "non-negative", "--sequence-length", "0"},
             {"--records", "per-call", "--void"}}) {
      std::vector<std::string> args = {"--payload", kind, "--seed", "3", "--warmup", "3"};
      args.insert(args.end(), flags.begin(), flags.end());
      SCOPED_TRACE(std::string(kind) + " " + flags[1] + " " + flags.back());
      const DriveRun run = test::drive(mech, server.endpoint(), dir, 12, args);
      EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
      EXPECT_EQ(run.samples.size(), 12u);
    }
  }
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

INSTANTIATE_TEST_SUITE_P(Peer, RecordsRpc, ::testing::ValuesIn(test::rpc_mechanisms()),
                         test::param_name);

// ---- --mock ------------------------------------------------------------------------------------

TEST(Mock, NewArrayRunsOverNoneAndIsUnsupportedElsewhere) {
  TempDir dir;
  for (const std::uint32_t size : {0u, 1u, 1000u, 1u << 20}) {
    SCOPED_TRACE(size);
    const DriveRun run = test::drive_bytes("none", "inproc", dir, 8, size, 50,
                                           {"--mock", "new-array", "--warmup", "5"});
    EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
    EXPECT_EQ(run.result["status"], "ok");
    EXPECT_EQ(run.result["response_size"], size);
    EXPECT_EQ(run.samples.size(), 50u);
    for (const auto ns : run.samples) EXPECT_GE(ns, 0);
  }
  EXPECT_EQ(test::drive_bytes("none", "inproc", dir, 8, 8, 5, {"--mock", "copy"}).child.exit_code,
            0);
  EXPECT_EQ(test::drive_bytes("direct", "inproc", dir, 8, 8, 1,
                              {"--mock", "new-array", "--native-library", IPCLAB_NATIVE_LIBRARY})
                .child.exit_code,
            7);
  EXPECT_EQ(test::drive_bytes("tcp", "127.0.0.1:1", dir, 8, 8, 1, {"--mock", "new-array"})
                .child.exit_code,
            7);
}

}  // namespace
}  // namespace ipclab
