// What the suites of the message libraries (test_zmq.cpp, test_nng.cpp, test_redis.cpp) check
// alike, each through servers it starts its own way: `capabilities`' rows, rr up to the largest
// payload, streams that count every message, the faults, and the patterns a library does not
// carry.
#pragma once

#include <string>
#include <vector>

#include "support.hpp"

namespace ipclab::test {

// A stream client's run: its exit, result and samples (drive() would add --iterations).
DriveRun stream_run(const std::string& mech, const std::string& endpoint, const TempDir& dir,
                    const std::vector<std::string>& extra);

// `capabilities` lists each of mechs with rr and stream and its `library` where the library is
// built in, and none of them where it is not.
void expect_listed_with_library(const std::vector<std::string>& mechs, bool built,
                                const std::string& library);

// Through server (ready): rr at 0 B, 16 B and 1 MiB (20 round trips each after 3 warm-up), then
// MAX_PAYLOAD both ways once; the server then ends at the end of its stdin with exit 0.
void expect_round_trips_up_to_the_largest_payload(const std::string& mech, Server& server,
                                                  const TempDir& dir);

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

}  // namespace ipclab::test
