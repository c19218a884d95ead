// The client's checks of the frames a server answers with (section 2), outside the timed region
// (reply_checks.cpp). The patterns of link_patterns.hpp call them; the fuzz target frame.cpp too.
#pragma once

#include <cstddef>
#include <cstdint>

#include "options.hpp"
#include "result.hpp"

namespace ipclab {

// The client's checks of one received RESPONSE (section 2), outside the timed region.
void check_response(const std::uint8_t* reply, std::size_t got, std::uint64_t seq,
                    const DriveOptions& o, const std::uint8_t* expected_payload);
// Its header and size alone (--sample-write header, 4.12: the payload was never written).
void check_response_frame(const std::uint8_t* reply, std::size_t got, std::uint64_t seq,
                          const DriveOptions& o);
// END, then END_ACK carrying the number of corrupted requests the server saw (section 2).
void check_end_ack(const std::uint8_t* reply, std::size_t got, std::uint64_t seq);
// A one-way END, then its END_ACK (11.2): corrupted requests (payload mismatch if any), then
// the requests the server received (fewer than `sent`: protocol).
void check_one_way_ack(const std::uint8_t* reply, std::size_t got, std::uint64_t seq,
                       std::uint64_t sent);
// A stream's MARK, then MARK_ACK (11.1 step 3): a header only.
void check_mark_ack(const std::uint8_t* reply, std::size_t got, std::uint64_t seq);

// What the client checks in a stream's END_ACK and reports (11.1 steps 4, 5, 8).
// Reports the figures to the recorder, then validates (a mismatch throws).
void finish_stream(const std::uint8_t* ack, std::size_t got, std::uint64_t end_sequence,
                   bool lossy, const DriveOptions& o, StreamReport& report, Recorder& recorder);

}  // namespace ipclab
