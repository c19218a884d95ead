// Fuzz target: one frame as either side receives it (PROTOCOL.md sections 2, 3, 11). The server's
// header checks and a MARK's payload check; the client's checks of a RESPONSE (header, size and
// payload bytes), of the three END_ACKs (rr, one-way short, stream with its seven figures) and
// of MARK_ACK. Every check must end in a verdict (nullptr / a reason, or PeerError), never a
// crash or another exception. The expected values the client checks against are taken from the
// frame itself, so the fuzzer gets past the header to the payload and the figures.
#include <cstdint>

#include "error.hpp"
#include "frame.hpp"
#include "patterns.hpp"
#include "payload.hpp"
#include "result.hpp"

namespace {

using namespace ipclab;

// A client check that rejects by throwing PeerError; anything else escapes and fails the input.
template <class F>
void verdict(F check) {
  try {
    check();
  } catch (const PeerError&) {
  }
}

void server_checks(const Header& h, const std::uint8_t* frame, std::size_t size) {
  if (check_request_header(h) != nullptr) return;
  if (h.kind != static_cast<std::uint8_t>(FrameKind::mark) || size < kMarkSize) return;
  const MarkFields m = decode_mark(frame + kHeaderSize);
  check_mark_payload(m, kMaxPayload);
  check_mark_payload(m, kUdpMaxMessage);
}

// A RESPONSE expected to be exactly this frame's size; its payload compared with the base, as
// bytes and (REST, CORBA callString) as text.
void response_checks(const Header& h, const std::uint8_t* frame, std::size_t size) {
  static BaseCache base(1, PayloadStream::response);
  DriveOptions o;
  o.response_size = h.length;
  o.request_size = h.wanted;
  const bool whole = size == kHeaderSize + static_cast<std::size_t>(h.length);
  const std::uint8_t* expected = whole ? base.get(h.length) : nullptr;
  verdict([&] { check_response(frame, size, h.sequence, o, expected); });
  if (whole)
    first_text_difference(reinterpret_cast<const char*>(frame + kHeaderSize), expected, h.length,
                          h.sequence);
}

// A stream's END_ACK: the client expects as many messages as the server says it received (up to
// a few, so the checksum it recomputes stays cheap), of a size from the frame's wanted field.
void stream_ack_checks(const Header& h, const std::uint8_t* frame, std::size_t size) {
  DriveOptions o;
  o.message_size = 1 + h.wanted % 64;
  o.messages = 1;
  if (size >= kStreamAckSize && load_le64(frame + kHeaderSize) <= 16)
    o.messages = load_le64(frame + kHeaderSize);
  SamplesWriter samples;
  Recorder recorder(samples, nullptr, 0);
  StreamReport report;
  const bool lossy = (h.flags & 1) != 0;
  verdict([&] { finish_stream(frame, size, h.sequence, lossy, o, report, recorder); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Header h{};
  if (size >= kHeaderSize) h = decode_header(data);
  if (size >= kHeaderSize) server_checks(h, data, size);
  verdict([&] { check_end_ack(data, size, h.sequence); });
  verdict([&] { check_one_way_ack(data, size, h.sequence, h.wanted); });
  verdict([&] { check_mark_ack(data, size, h.sequence); });
  if (size >= kHeaderSize) response_checks(h, data, size);
  stream_ack_checks(h, data, size);
  return 0;
}
