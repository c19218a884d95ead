// What the suites of the message libraries (test_zmq.cpp, test_nng.cpp, test_redis.cpp,
// test_nats.cpp) check alike, each through servers it starts its own way: `capabilities`' rows,
// rr up to the largest payload, streams that count every message, the faults, and the patterns a
// library does not carry; and the orchestrator's launcher of a private server (Redis, NATS).
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "frame.hpp"
#include "support.hpp"

namespace ipclab::test {

// A server of a two-socket library's mech (zmq-*, nng-*) with its endpoint in dir: the socket
// path dir/s for the -ipc ones, 127.0.0.1 and ports the library picks for the -tcp ones.
Server two_socket_server(const std::string& mech, const TempDir& dir,
                         const std::vector<std::string>& extra = {});

// A server of the orchestrator's launchers (`python -m ipclab.execute.redis_server tcp|uds
// DIR`, `python -m ipclab.execute.nats_server DIR`), which print the endpoint (with the name
// ipclab:test) first and run until SIGTERM, then remove DIR.
struct Launched {
  pid_t pid = -1;
  std::string endpoint;  // empty: it did not start
};
Launched launch_server(const std::string& module, const std::vector<std::string>& args);
// Stops it (SIGTERM: it stops the server and removes its directory) and waits for it.
void stop(Launched& l);

// READY of a responder through a server the suite started (Redis, NATS): the endpoint it was
// given, mech, and the server's version in `broker`, which starts with prefix ("Redis ",
// "NATS 2.") and goes on past it.
void expect_ready_names_the_server(Server& server, const std::string& mech,
                                   const std::string& endpoint, const std::string& prefix);

// A stream client's run: its exit, result and samples (drive() would add --iterations).
DriveRun stream_run(const std::string& mech, const std::string& endpoint, const TempDir& dir,
                    const std::vector<std::string>& extra);

// `capabilities` lists each of mechs with rr and stream and its `library` where the library is
// built in, and none of them where it is not.
void expect_listed_with_library(const std::vector<std::string>& mechs, bool built,
                                const std::string& library);

// Through server (ready): rr at 0 B, 16 B and 1 MiB (20 round trips each after 3 warm-up), then
// `largest` both ways once (MAX_PAYLOAD, or what the mechanism carries: then one byte more is
// refused as unsupported); the server then ends at the end of its stdin with exit 0.
void expect_round_trips_up_to_the_largest_payload(const std::string& mech, Server& server,
                                                  const TempDir& dir,
                                                  std::uint32_t largest = kMaxPayload);

// Through server (ready): streams of 3000 messages of 1 B and 1000 B and 40 of 4 MiB, 4 windows
// each, every message counted; the server then ends with exit 0.
void expect_streams_count_every_message(const std::string& mech, Server& server,
                                        const TempDir& dir);

// A client of `short` refused as unsupported (client_endpoint: any the mechanism parses), and a
// `load` server on server_endpoint refused.
void expect_short_and_load_refused(const std::string& mech, const std::string& client_endpoint,
                                   const std::string& server_endpoint, const TempDir& dir);

// The client fails its payload check through the server `start(fault, dir)` gives for each of
// the faults that corrupt a response or a stream (drop or flip a byte).
template <class Start>
void expect_faults_fail_the_client(const std::string& mech, const Start& start) {
  for (const std::string fault : {"flip-response-byte", "drop-stream-message",
                                  "flip-stream-byte"}) {
    SCOPED_TRACE(fault);
    TempDir dir;
    Server server = start(fault, dir);
    ASSERT_TRUE(server.ready());
    const DriveRun run =
        fault == "flip-response-byte"
            ? drive_bytes(mech, server.endpoint(), dir, 16, 16, 5)
            : stream_run(mech, server.endpoint(), dir, {"--message-size", "64", "--messages", "50"});
    EXPECT_EQ(run.child.exit_code, 3) << run.child.err;
    EXPECT_EQ(run.result["error_kind"], "payload-mismatch");
  }
}

// A frame of `kind` whose header says `length`, with payload_bytes zero bytes after it (a
// wrong length on purpose where they differ).
std::vector<std::uint8_t> frame(FrameKind kind, std::uint64_t seq, std::uint32_t length,
                                std::size_t payload_bytes);

// The frames a message library's server rejects, sent through raw (ask(bytes) sends bytes as a
// frame and returns the answer, empty where the answer was; push(n) sends n bytes as a stream
// message): three requests it rejects answered empty; where stream messages travel apart from
// the frames (apart: two sockets), a stream message nobody announced; and one of the wrong size
// where one is due (the rest of the MARK's count given up: END's answer counts none).
template <class Raw>
void expect_rejected_frames_answered_empty(Raw& raw, bool apart) {
  EXPECT_TRUE(raw.ask(std::vector<std::uint8_t>(10, 0)).empty());  // truncated header
  EXPECT_TRUE(raw.ask(frame(FrameKind::request, 0, 100, 10)).empty());  // length mismatch
  std::vector<std::uint8_t> bad_magic = frame(FrameKind::request, 0, 0, 0);
  bad_magic[0] = 'X';
  EXPECT_TRUE(raw.ask(bad_magic).empty());
  if (apart) raw.push(16);
  std::vector<std::uint8_t> mark = frame(FrameKind::mark, 0, kMarkPayload, kMarkPayload);
  encode_mark(mark.data() + kHeaderSize, 32, 2);
  EXPECT_EQ(raw.ask(mark).size(), kHeaderSize);
  raw.push(31);
  const std::vector<std::uint8_t> ack = raw.ask(frame(FrameKind::end, 3, 0, 0));
  ASSERT_EQ(ack.size(), kStreamAckSize);
  EXPECT_EQ(load_le64(ack.data() + kHeaderSize), 0u);  // received
}

// What a server stopped after expect_rejected_frames_answered_empty's frames (apart) said: the
// three requests' rejections in order (one socket, each answered before the next), then the two
// stream messages', compared as a set: they travel on the PULL socket beside the MARK on the
// REP one, and the server may take them in either order.
void expect_rejections_said(const ChildResult& stopped);

// The same where frames and stream messages travel one queue (redis-*, 4.10; nats, 4.11): the
// four rejections in the order they were sent, then `more`'s (the suite's own, sent after them).
void expect_rejections_said_in_order(const ChildResult& stopped,
                                     const std::vector<std::string>& more = {});

// The rejections of a two-socket library's server (zmq-tcp, 4.8; nng-tcp, 4.9), made through a
// Raw of the test's own (its request and push sockets connected to the server's endpoint):
// expect_rejected_frames_answered_empty's frames; then the server goes on (a client's round
// trips pass), stops cleanly, and has said each rejection once.
template <class Raw>
void expect_rejections_answered_empty(const std::string& mech, Server& server,
                                      const TempDir& dir) {
  ASSERT_TRUE(server.ready());
  {
    Raw raw(server.endpoint());
    expect_rejected_frames_answered_empty(raw, true);
  }
  EXPECT_EQ(drive_bytes(mech, server.endpoint(), dir, 16, 16, 5).child.exit_code, 0);
  server.close_stdin();
  expect_rejections_said(server.wait());
}

// A responder of mech on endpoint, a name on the private server l (launched by the test),
// exits with the io error's code once that server is stopped, having said `said` (where not
// empty); and one started with no server there fails with the same code before READY (its
// stdin held, as the orchestrator holds it: at end of stdin a server exits 0 at once, which
// could come first).
void expect_a_lost_server_ends_the_responder(const std::string& mech, Launched& l,
                                             const std::string& endpoint,
                                             const std::string& said = "");

}  // namespace ipclab::test
