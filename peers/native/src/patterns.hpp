// The traffic patterns of PROTOCOL.md section 11 over the links of links.hpp: the second table.
// A pattern is one struct with its name and one function template `run(link, options,
// recorder)`, and one entry in `Patterns` below; every frame mechanism then drives it (its row
// in mechanisms.cpp names kFramePatterns). Version 2 has only rr.
#pragma once

#include <time.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "frame.hpp"
#include "options.hpp"
#include "payload.hpp"
#include "result.hpp"
#include "transport/timeout.hpp"

namespace ipclab {

inline std::int64_t now_ns() noexcept {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

inline std::string at_sequence(const std::string& message, std::uint64_t sequence) {
  return message + " (sequence " + std::to_string(sequence) + ")";
}

// The client's checks of one received RESPONSE (section 2), outside the timed region.
void check_response(const std::uint8_t* reply, std::size_t got, std::uint64_t seq,
                    const DriveOptions& o, const std::uint8_t* expected_payload);
// END, then END_ACK carrying the number of corrupted requests the server saw (section 2).
void check_end_ack(const std::uint8_t* reply, std::size_t got, std::uint64_t seq);

// rr: request-response round trips (sections 2 and 7). A round trip's time is recorded only
// after it passed validation.
struct RequestResponse {
  static constexpr std::string_view name = "rr";

  template <class Link>
  static void run(Link& link, const DriveOptions& o, Recorder& recorder) {
    const std::int64_t timeout_ns = o.io_timeout_ns;
    const std::size_t req_total = kHeaderSize + o.request_size;
    const std::size_t resp_total = kHeaderSize + o.response_size;

    std::vector<std::uint8_t> request(req_total);
    encode_header(request.data(), FrameKind::request, 0, o.request_size, o.response_size);
    fill_base(o.seed, PayloadStream::request, request.data() + kHeaderSize, o.request_size);
    std::uint8_t head[kStampBytes] = {};
    std::memcpy(head, request.data() + kHeaderSize,
                o.request_size < kStampBytes ? o.request_size : kStampBytes);

    const std::vector<std::uint8_t> expected =
        make_base(o.seed, PayloadStream::response, o.response_size);
    const std::size_t capacity =
        link.capacity_for(resp_total > kEndAckSize ? resp_total : kEndAckSize);
    std::vector<std::uint8_t> reply(capacity);

    std::uint8_t* const req = request.data();
    std::uint8_t* const rep = reply.data();
    const std::uint64_t total = o.warmup + o.iterations;
    std::uint64_t seq = 0;
    try {
      for (; seq < total; ++seq) {
        store_le64(req + kOffSequence, seq);
        stamp_from(req + kHeaderSize, head, o.request_size, seq);

        const std::int64_t t0 = now_ns();
        arm_receive_deadline(t0 + timeout_ns);
        link.send(req, req_total);
        const std::size_t got = link.receive(rep, capacity, resp_total);
        const std::int64_t t1 = now_ns();

        check_response(rep, got, seq, o, expected.data());
        recorder.record(seq, t1 - t0);
      }
      std::uint8_t end[kHeaderSize];
      encode_header(end, FrameKind::end, seq, 0, 0);
      arm_receive_deadline(now_ns() + timeout_ns);
      link.send(end, sizeof end);
      const std::size_t got = link.receive(rep, capacity, kEndAckSize);
      disarm_receive_deadline();
      check_end_ack(rep, got, seq);
    } catch (const PeerError& e) {
      disarm_receive_deadline();
      throw PeerError(e.kind(), at_sequence(e.what(), seq));
    }
  }
};

// The table: a pattern's struct once here. names() is what capabilities reports, run() finds
// the pattern by name (false: not a pattern of this table).
template <class... P>
struct PatternTable {
  static constexpr std::array<std::string_view, sizeof...(P)> names = {P::name...};

  template <class Link>
  static bool run(std::string_view name, Link& link, const DriveOptions& o, Recorder& r) {
    return ((name == P::name ? (P::template run<Link>(link, o, r), true) : false) || ...);
  }
};

using Patterns = PatternTable<RequestResponse>;

// What a frame mechanism's client drives: every pattern of the table.
inline constexpr std::span<const std::string_view> kFramePatterns = Patterns::names;
// What the in-process calls and the RPC frameworks drive: their own rr loops.
inline constexpr std::array<std::string_view, 1> kRequestResponseOnly = {RequestResponse::name};

}  // namespace ipclab
