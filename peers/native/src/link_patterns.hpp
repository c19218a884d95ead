// The patterns of PROTOCOL.md section 11 that run over one link of links.hpp: rr, stream and
// short, the timed loops. A pattern is one struct with its name, what the command line asks of
// it (`command_line`, pattern_flags.hpp) and one function template `run(link, options,
// recorder)`; its row in the table (patterns.hpp) makes it known to the command line, `drive`
// and the rows of mechanisms.cpp.
#pragma once

#include <time.h>

#include <array>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "frame.hpp"
#include "options.hpp"
#include "pattern_flags.hpp"
#include "payload.hpp"
#include "reply_checks.hpp"  // the checks of what the server answers
#include "result.hpp"
#include "tally.hpp"
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

// The client's buffers of a request-response pattern (rr, short): the REQUEST frame with its
// base payload (only the sequence and the stamp change per round trip), the expected RESPONSE
// payload and a reply buffer the link can receive any answer into. One-way (11.2): the REQUEST
// has flags NO_REPLY and the END_ACK is the 40-byte one.
template <class Link>
struct RoundTripFrames {
  RoundTripFrames(Link& link, const DriveOptions& o, std::uint16_t flags = 0,
                  std::size_t end_ack_size = kEndAckSize)
      : request_total(kHeaderSize + o.request_size),
        response_total(kHeaderSize + o.response_size),
        capacity(link.capacity_for(response_total > end_ack_size ? response_total : end_ack_size)),
        request(request_total),
        expected(make_base(o.seed, PayloadStream::response, o.response_size)),
        reply(capacity),
        size_(o.request_size) {
    encode_header(request.data(), FrameKind::request, 0, o.request_size, o.response_size, flags);
    fill_base(o.seed, PayloadStream::request, request.data() + kHeaderSize, o.request_size);
    std::memcpy(head_, request.data() + kHeaderSize, size_ < kStampBytes ? size_ : kStampBytes);
  }
  // The request of round trip seq, ready to send.
  std::uint8_t* stamped(std::uint64_t seq) noexcept {
    std::uint8_t* const req = request.data();
    store_le64(req + kOffSequence, seq);
    stamp_from(req + kHeaderSize, head_, size_, seq);
    return req;
  }

  const std::size_t request_total, response_total, capacity;
  std::vector<std::uint8_t> request;
  const std::vector<std::uint8_t> expected;
  std::vector<std::uint8_t> reply;

 private:
  std::size_t size_;
  std::uint8_t head_[kStampBytes] = {};
};

// Sends a control frame (END, no payload; MARK with its 16 bytes, `mark`) and receives its
// answer of `expect` bytes within --io-timeout. On a link that may lose datagrams (udp) the frame
// is sent again every 100 ms until the answer comes (11.1 step 5), and a late duplicate
// MARK_ACK (of this MARK's predecessor, or while waiting for END_ACK) is skipped.
template <class Link>
std::size_t exchange_control(Link& link, FrameKind kind, std::uint64_t seq, std::uint8_t* reply,
                             std::size_t capacity, std::size_t expect, const DriveOptions& o,
                             std::uint16_t flags = 0, const MarkFields* mark = nullptr) {
  constexpr std::int64_t kResendNs = 100'000'000;
  std::uint8_t frame[kMarkSize];
  const std::size_t size = mark != nullptr ? kMarkSize : kHeaderSize;
  encode_header(frame, kind, seq, static_cast<std::uint32_t>(size - kHeaderSize), 0, flags);
  if (mark != nullptr) encode_mark(frame + kHeaderSize, mark->message_size, mark->count);
  const std::int64_t deadline = now_ns() + o.io_timeout_ns;
  arm_receive_deadline(deadline);
  link.send(frame, size);
  for (;;) {
    if constexpr (requires { link.readable_within(kResendNs); }) {
      if (link.lossy() && !link.readable_within(kResendNs)) {
        if (now_ns() >= deadline) throw_timeout();
        link.send(frame, size);
        continue;
      }
    }
    const std::size_t got = link.receive(reply, capacity, expect);
    // An earlier MARK's answer, late (a resent MARK answered twice), is not this one's.
    if (got == kHeaderSize && reply[kOffKind] == static_cast<std::uint8_t>(FrameKind::mark_ack) &&
        (kind != FrameKind::mark || decode_header(reply).sequence < seq))
      continue;
    disarm_receive_deadline();
    return got;
  }
}

// A link that hands a reply over where it lies (iceoryx2, 4.12: the sample in shared memory):
// receive_in_place(expect) is the next reply's bytes, valid until release_received(). rr checks
// its RESPONSE there instead of in a copy; the control frames' answers go through receive().
template <class Link>
concept InPlaceReplies = requires(Link& link, std::size_t n) {
  { link.receive_in_place(n) } -> std::same_as<std::span<const std::uint8_t>>;
  link.release_received();
};

// rr: request-response round trips (sections 2 and 7). A round trip's time is recorded only
// after it passed validation.
struct RequestResponse {
  static constexpr std::string_view name = "rr";
  // --void is its own (10.1); its sizes and counts are the round trips'.
  static constexpr std::array<std::string_view, 1> own_flags = {"--void"};
  static constexpr PatternFlags command_line = {own_flags, {}, parse_round_trip_flags};

  template <class Link>
  static void run(Link& link, const DriveOptions& o, Recorder& recorder) {
    RoundTripFrames<Link> f(link, o);
    std::uint8_t* const rep = f.reply.data();
    const std::uint64_t total = o.warmup + o.iterations;
    std::uint64_t seq = 0;
    try {
      for (; seq < total; ++seq) {
        const std::uint8_t* req = f.stamped(seq);
        const std::int64_t t0 = now_ns();
        arm_receive_deadline(t0 + o.io_timeout_ns);
        link.send(req, f.request_total);
        if constexpr (InPlaceReplies<Link>) {  // checked where it lies, then released
          const std::span<const std::uint8_t> r = link.receive_in_place(f.response_total);
          const std::int64_t t1 = now_ns();

          if (o.sample_header_only)  // --sample-write header (4.12): nothing else was written
            check_response_frame(r.data(), r.size(), seq, o);
          else
            check_response(r.data(), r.size(), seq, o, f.expected.data());
          link.release_received();
          recorder.record(seq, t1 - t0);
        } else {
          const std::size_t got = link.receive(rep, f.capacity, f.response_total);
          const std::int64_t t1 = now_ns();

          check_response(rep, got, seq, o, f.expected.data());
          recorder.record(seq, t1 - t0);
        }
      }
      const std::size_t got =
          exchange_control(link, FrameKind::end, seq, rep, f.capacity, kEndAckSize, o);
      check_end_ack(rep, got, seq);
    } catch (const PeerError& e) {
      disarm_receive_deadline();
      throw PeerError(e.kind(), at_sequence(e.what(), seq));
    }
  }
};

// short (11.2): a new connection per round trip (tcp, uds: socket and connect, tcp from
// 127.1.b.c; sysv-mq: msgget; posix-mq: mq_open and mq_close). The sample is the whole of it,
// from before the connect (or the open) to after the close; the socket and its source bind are
// made before the clock (prepare). END goes over one more connection. The link's first
// connection (made by the mechanism's row) is closed before the first round trip, untimed.
// --one-way: open, send a REQUEST with flags NO_REPLY, close; nothing is read until END.
struct ShortConnections {
  static constexpr std::string_view name = "short";
  // --one-way and --source are its own (11.2); its sizes and counts are the round trips'.
  static constexpr std::array<std::string_view, 2> own_flags = {"--one-way", "--source"};
  static constexpr PatternFlags command_line = {own_flags, {}, parse_round_trip_flags};

  // Connection i's socket, made (and bound) before the clock; the queues have nothing to make.
  template <class Link>
  static void prepare(Link& link, std::uint64_t i) {
    if constexpr (requires { link.prepare(i); }) link.prepare(i);
  }

  template <class Link>
  static void run(Link& link, const DriveOptions& o, Recorder& recorder) {
    if constexpr (!requires { link.open(std::uint64_t{}); }) {
      throw PeerError(ErrorKind::unsupported, "pattern short needs connections");
    } else {
      std::uint64_t seq = 0;
      try {
        link.close();
        if (o.one_way)
          connections<true>(link, o, recorder, seq);
        else
          connections<false>(link, o, recorder, seq);
      } catch (const PeerError& e) {
        disarm_receive_deadline();
        throw PeerError(e.kind(), at_sequence(e.what(), seq));
      }
    }
  }

 private:
  // One connection per round trip (kOneWay: per REQUEST, nothing read until END's answer). The
  // deadline also bounds a one-way send that waits for room (a full queue or backlog).
  template <bool kOneWay, class Link>
  static void connections(Link& link, const DriveOptions& o, Recorder& recorder,
                          std::uint64_t& seq) {
    constexpr std::uint16_t flags = kOneWay ? kNoReply : 0;
    constexpr std::size_t ack_size = kOneWay ? kOneWayAckSize : kEndAckSize;
    RoundTripFrames<Link> f(link, o, flags, ack_size);
    std::uint8_t* const rep = f.reply.data();
    const std::uint64_t total = o.warmup + o.iterations;
    for (; seq < total; ++seq) {
      const std::uint8_t* req = f.stamped(seq);
      prepare(link, seq);
      const std::int64_t t0 = now_ns();
      arm_receive_deadline(t0 + o.io_timeout_ns);
      link.open(seq);
      link.send(req, f.request_total);
      std::size_t got = 0;
      if constexpr (!kOneWay) got = link.receive(rep, f.capacity, f.response_total);
      link.close();
      const std::int64_t t1 = now_ns();

      if constexpr (!kOneWay) check_response(rep, got, seq, o, f.expected.data());
      recorder.record(seq, t1 - t0);
    }
    prepare(link, seq);
    link.open(seq);
    const std::size_t got =
        exchange_control(link, FrameKind::end, seq, rep, f.capacity, ack_size, o, flags);
    link.close();
    if constexpr (kOneWay)
      check_one_way_ack(rep, got, seq, total);
    else
      check_end_ack(rep, got, seq);
  }
};

// Whether a link may lose frames (udp): a stream over it counts losses instead of failing.
template <class Link>
bool may_lose(const Link& link) noexcept {
  if constexpr (requires { link.lossy(); }) return link.lossy();
  return false;
}

// Hands one stream message to the link: the link's own way when it has one (grpc: a Chunk with
// the sequence, 11.3), else as a frame's bytes go (one write, one datagram, one file; channel
// messages of M bytes).
template <class Link>
inline void send_message(Link& link, const std::uint8_t* p, std::size_t n, std::uint64_t seq) {
  if constexpr (requires { link.send_message(p, n, seq); })
    link.send_message(p, n, seq);
  else
    link.send(p, n);
}

// stream (11.1): MARK (count M) / MARK_ACK, M warm-up messages, MARK (count N) / MARK_ACK, N
// messages as fast as the link takes them, END / END_ACK. A message is its S bytes and nothing
// else: one buffer holding the base, stamped in place (nothing allocated or computed per message
// but the stamp), one send per message. W windows of the stream are the samples, recorded only
// after the END_ACK passed validation.
struct OneWayStream {
  static constexpr std::string_view name = "stream";
  // Its own sizes and counts (11.1); the round trips' are a usage error with it.
  static constexpr std::array<std::string_view, 3> own_flags = {"--message-size", "--messages",
                                                                "--windows"};
  static constexpr std::array<std::string_view, 6> refused_flags = {
      "--request-size", "--response-size", "--iterations", "--payload", "--sequence-length",
      "--warmup-samples-file"};
  static constexpr PatternFlags command_line = {own_flags, refused_flags, parse_stream_flags};

  // MARK (count M), the M warm-up messages, then MARK (count N): returns the size of the
  // measured MARK's answer, received but not yet checked (the clock starts first).
  template <class Link>
  static std::size_t warm_up(Link& link, const DriveOptions& o, std::uint8_t* m,
                             const std::uint8_t* head, std::uint8_t* rep, std::size_t capacity,
                             std::uint64_t& seq) {
    const std::size_t size = o.message_size;
    const MarkFields warm{size, o.warmup}, measured{size, o.messages};
    const std::size_t got =
        exchange_control(link, FrameKind::mark, seq, rep, capacity, kHeaderSize, o, 0, &warm);
    check_mark_ack(rep, got, seq);
    while (seq < o.warmup) {
      ++seq;
      stamp_from(m, head, size, seq);
      send_message(link, m, size, seq);
    }
    ++seq;  // the measured stream's MARK
    return exchange_control(link, FrameKind::mark, seq, rep, capacity, kHeaderSize, o, 0,
                            &measured);
  }

  template <class Link>
  static void run(Link& link, const DriveOptions& o, Recorder& recorder) {
    const std::size_t size = o.message_size;
    std::vector<std::uint8_t> message = make_base(o.seed, PayloadStream::request, size);
    std::uint8_t head[kStampBytes] = {};
    std::memcpy(head, message.data(), size < kStampBytes ? size : kStampBytes);
    const std::size_t capacity = link.capacity_for(kStreamAckSize);
    std::vector<std::uint8_t> reply(capacity);
    std::vector<std::int64_t> windows(o.windows);
    std::uint8_t* m = message.data();
    if constexpr (requires { link.message_buffer(size); }) {
      if (std::uint8_t* in_place = link.message_buffer(size)) {  // sysv-mq: no copy per send
        std::memcpy(in_place, m, size);
        m = in_place;
      }
    }
    std::uint8_t* const rep = reply.data();

    std::uint64_t seq = 0;
    try {
      std::size_t got = warm_up(link, o, m, head, rep, capacity, seq);
      const CpuFigures cpu_start = CpuFigures::now();
      const std::int64_t start = now_ns();
      check_mark_ack(rep, got, seq);

      const std::uint64_t per_window = o.messages / o.windows;
      std::int64_t last = start;
      for (std::uint64_t w = 0; w < o.windows; ++w) {
        const std::uint64_t end =
            seq + (w + 1 == o.windows ? o.messages - per_window * (o.windows - 1) : per_window);
        while (seq < end) {
          ++seq;
          stamp_from(m, head, size, seq);
          send_message(link, m, size, seq);
        }
        if (w + 1 < o.windows) {
          const std::int64_t t = now_ns();
          windows[w] = t - last;
          last = t;
        }
      }
      ++seq;  // END
      got = exchange_control(link, FrameKind::end, seq, rep, capacity, kStreamAckSize, o);
      const std::int64_t stop = now_ns();
      const CpuFigures cpu_stop = CpuFigures::now();
      windows.back() = stop - last;

      StreamReport report;
      report.stream_ns = static_cast<std::uint64_t>(stop - start);
      report.client_cpu = cpu_stop.since(cpu_start);
      finish_stream(rep, got, seq, may_lose(link), o, report, recorder);
      for (const std::int64_t ns : windows) recorder.record_measured(ns);
    } catch (const PeerError& e) {
      disarm_receive_deadline();
      throw PeerError(e.kind(), at_sequence(e.what(), seq));
    }
  }
};

}  // namespace ipclab
