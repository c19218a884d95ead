// The client's checks of what the server answers (PROTOCOL.md section 2; 11.1, 11.2), made
// outside the timed region: a RESPONSE, the END_ACKs of rr, one-way short and stream, MARK_ACK.
// Each throws PeerError (protocol, payload_mismatch) naming what was wrong.
#include "reply_checks.hpp"

#include <cstdio>
#include <string>

#include "error.hpp"
#include "frame.hpp"
#include "payload.hpp"
#include "tally.hpp"

namespace ipclab {

void check_response(const std::uint8_t* reply, std::size_t got, std::uint64_t seq,
                    const DriveOptions& o, const std::uint8_t* expected_payload) {
  check_response_frame(reply, got, seq, o);
  const std::size_t off =
      first_difference(reply + kHeaderSize, expected_payload, o.response_size, seq);
  if (off != kNoDifference)
    throw PeerError(ErrorKind::payload_mismatch,
                    "payload mismatch at offset " + std::to_string(off));
}

void check_response_frame(const std::uint8_t* reply, std::size_t got, std::uint64_t seq,
                          const DriveOptions& o) {
  if (got < kHeaderSize)
    throw PeerError(ErrorKind::protocol,
                    "frame of " + std::to_string(got) + " bytes, shorter than a header");
  if (auto bad = check_reply_header(decode_header(reply), FrameKind::response, seq,
                                    o.response_size, o.request_size))
    throw PeerError(ErrorKind::protocol, *bad);
  const std::size_t total = kHeaderSize + o.response_size;
  if (got != total)
    throw PeerError(ErrorKind::protocol, "frame size: expected " + std::to_string(total) +
                                             ", received " + std::to_string(got));
}

namespace {

// An END_ACK's header and size (section 2), answering END `seq`, with `payload` bytes.
void check_ack_frame(const std::uint8_t* reply, std::size_t got, std::uint64_t seq,
                     std::size_t payload) {
  if (got < kHeaderSize)
    throw PeerError(ErrorKind::protocol,
                    "END_ACK of " + std::to_string(got) + " bytes, shorter than a header");
  if (auto bad = check_reply_header(decode_header(reply), FrameKind::end_ack, seq,
                                    static_cast<std::uint32_t>(payload), 0))
    throw PeerError(ErrorKind::protocol, "END_ACK " + *bad);
  if (got != kHeaderSize + payload)
    throw PeerError(ErrorKind::protocol, "END_ACK size: expected " +
                                             std::to_string(kHeaderSize + payload) +
                                             ", received " + std::to_string(got));
}

void check_corrupted(std::uint64_t corrupted) {
  if (corrupted != 0)
    throw PeerError(ErrorKind::payload_mismatch,
                    "payload mismatch: server received " + std::to_string(corrupted) +
                        " corrupted request payloads");
}

}  // namespace

void check_end_ack(const std::uint8_t* reply, std::size_t got, std::uint64_t seq) {
  check_ack_frame(reply, got, seq, kEndAckSize - kHeaderSize);
  check_corrupted(load_le64(reply + kHeaderSize));
}

void check_one_way_ack(const std::uint8_t* reply, std::size_t got, std::uint64_t seq,
                       std::uint64_t sent) {
  check_ack_frame(reply, got, seq, kOneWayAckPayload);
  check_corrupted(load_le64(reply + kHeaderSize));
  const std::uint64_t received = load_le64(reply + kHeaderSize + 8);
  if (received < sent)
    throw PeerError(ErrorKind::protocol,
                    "the server received " + std::to_string(received) +
                        " one-way requests, the client sent " + std::to_string(sent) +
                        " (warm-up + iterations)");
}

void check_mark_ack(const std::uint8_t* reply, std::size_t got, std::uint64_t seq) {
  if (got < kHeaderSize)
    throw PeerError(ErrorKind::protocol, "MARK_ACK of " + std::to_string(got) + " bytes");
  if (auto bad = check_reply_header(decode_header(reply), FrameKind::mark_ack, seq, 0, 0))
    throw PeerError(ErrorKind::protocol, "MARK_ACK " + *bad);
}

void finish_stream(const std::uint8_t* ack, std::size_t got, std::uint64_t end_sequence,
                   bool lossy, const DriveOptions& o, StreamReport& report, Recorder& recorder) {
  check_ack_frame(ack, got, end_sequence, kStreamAckPayload);
  std::uint64_t field[7];
  for (int i = 0; i < 7; ++i) field[i] = load_le64(ack + kHeaderSize + 8 * i);
  const std::uint64_t received = field[0], gaps = field[1], checksum = field[2];
  report.messages = o.messages;
  report.message_size = o.message_size;
  report.windows = o.windows;
  report.server_cpu = {field[3], field[4], field[5], field[6]};
  // udp: a lost datagram is counted, not an error; the checksum is checked when none was lost.
  if (lossy && received < o.messages) report.lost = o.messages - received;
  recorder.report(report);  // the figures are kept whatever the validation finds
  if (report.lost != 0) return;
  if (received != o.messages || gaps != 0)
    throw PeerError(ErrorKind::payload_mismatch,
                    "payload mismatch: the server received " + std::to_string(received) + " of " +
                        std::to_string(o.messages) + " messages, " + std::to_string(gaps) +
                        (gaps == 1 ? " gap" : " gaps"));
  // The measured messages follow the two MARKs and the warm-up: sequences M+2 ... M+N+1.
  const std::uint64_t want = expected_checksum(o.seed, o.message_size, o.warmup + 2, o.messages);
  if (checksum != want) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "payload mismatch: stream checksum 0x%016llx from the server, 0x%016llx sent",
                  static_cast<unsigned long long>(checksum), static_cast<unsigned long long>(want));
    throw PeerError(ErrorKind::payload_mismatch, text);
  }
}

}  // namespace ipclab
