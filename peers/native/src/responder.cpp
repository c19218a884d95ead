#include "responder.hpp"

#include <cstring>

namespace ipclab {

// ---- RequestHandler -------------------------------------------------------------------------

RequestHandler::RequestHandler(const ServerConfig& config)
    : config_(config), request_base_(config.seed, PayloadStream::request) {}

const std::uint8_t* RequestHandler::response(std::uint64_t sequence,
                                             std::uint32_t request_length,
                                             std::uint32_t wanted) {
  std::uint8_t* f;
  if (frame_wanted_ != static_cast<std::int64_t>(wanted)) {
    frame_.assign(kHeaderSize + wanted, 0);
    f = frame_.data();
    fill_base(config_.seed, PayloadStream::response, f + kHeaderSize, wanted);
    std::memcpy(head_, f + kHeaderSize, wanted < kStampBytes ? wanted : kStampBytes);
    encode_header(f, FrameKind::response, sequence, wanted, request_length);
    frame_wanted_ = wanted;
  } else {
    f = frame_.data();
    store_le64(f + kOffSequence, sequence);
    store_le32(f + kOffWanted, request_length);
  }
  stamp_from(f + kHeaderSize, head_, wanted, sequence);
  if (config_.flip_response_byte && wanted > 0) f[kHeaderSize + wanted - 1] ^= 0x01;
  last_wanted_ = wanted;
  return f;
}

void RequestHandler::after_send() noexcept {
  // Undo the fault so the buffer holds the base again (the stamp is redone per frame anyway).
  if (config_.flip_response_byte && last_wanted_ > 0)
    frame_[kHeaderSize + last_wanted_ - 1] ^= 0x01;
}

bool RequestHandler::request_ok(const std::uint8_t* payload, std::uint32_t length,
                                std::uint64_t sequence) {
  return first_difference(payload, request_base_.get(length), length, sequence) == kNoDifference;
}

void RequestHandler::end_ack(std::uint8_t* out, std::uint64_t sequence,
                             std::uint64_t corrupted) noexcept {
  encode_header(out, FrameKind::end_ack, sequence, 8, 0);
  store_le64(out + kHeaderSize, corrupted);
}

void RequestHandler::one_way_end_ack(std::uint8_t* out, std::uint64_t sequence,
                                     std::uint64_t corrupted, std::uint64_t received) noexcept {
  encode_header(out, FrameKind::end_ack, sequence, kOneWayAckPayload, 0);
  store_le64(out + kHeaderSize, corrupted);
  store_le64(out + kHeaderSize + 8, received);
}

// ---- Responder ------------------------------------------------------------------------------

namespace {
constexpr auto kind_of(const Header& h) noexcept { return static_cast<FrameKind>(h.kind); }
}  // namespace

Responder::Responder(const ServerConfig& config)
    : requests_(config),
      tally_(config.stream_fault),
      seed_(config.seed),
      max_message_(config.max_message) {}

Responder::Answer Responder::answer(const Header& h, const std::uint8_t* payload,
                                    std::uint64_t& corrupted) {
  switch (kind_of(h)) {
    case FrameKind::request:
      streaming_ = repeat_end_ = false;
      pending_ = 0;
      if (h.flags != 0) {  // NO_REPLY: counted; its payload is checked in after_send
        ++one_way_received_;
        return {nullptr, 0};
      }
      return {requests_.response(h.sequence, h.length, h.wanted), kHeaderSize + h.wanted};
    case FrameKind::mark:
      return mark(h, payload);
    default:  // END
      pending_ = 0;
      if (h.flags != 0) return end_one_way(h, corrupted);
      if (streaming_) {
        encode_header(control_, FrameKind::end_ack, h.sequence, kStreamAckPayload, 0);
        tally_.write_ack(control_ + kHeaderSize);
        streaming_ = false;
        repeat_end_ = true;
        end_sequence_ = h.sequence;
      }
      if (repeat_end_ && end_sequence_ == h.sequence) return {control_, kStreamAckSize};
      repeat_end_ = false;
      RequestHandler::end_ack(control_, h.sequence, corrupted);
      corrupted = one_way_received_ = 0;
      return {control_, kEndAckSize};
  }
}

// Every message before it has been received: the counts start here (a repeated udp MARK with no
// message since only gets its answer again). The message size was checked by check().
Responder::Answer Responder::mark(const Header& h, const std::uint8_t* payload) {
  const MarkFields m = decode_mark(payload);
  const auto size = static_cast<std::size_t>(m.message_size);
  if (!streaming_ || h.sequence != mark_sequence_ || tally_.received() != 0 ||
      size != message_size_) {
    std::uint8_t head[kStampBytes] = {};
    fill_base(seed_, PayloadStream::request, head, size < kStampBytes ? size : kStampBytes);
    tally_.restart(h.sequence, head, size);
  }
  streaming_ = true;
  mark_sequence_ = h.sequence;
  repeat_end_ = false;
  pending_ = m.count;
  message_size_ = size;
  encode_header(control_, FrameKind::mark_ack, h.sequence, 0, 0);
  return {control_, kHeaderSize};
}

Responder::Answer Responder::end_one_way(const Header& h, std::uint64_t& corrupted) {
  streaming_ = repeat_end_ = false;
  RequestHandler::one_way_end_ack(control_, h.sequence, corrupted, one_way_received_);
  corrupted = one_way_received_ = 0;
  return {control_, kOneWayAckSize};
}

bool Responder::after_request(const Header& h, const std::uint8_t* payload) {
  if (h.flags == 0) requests_.after_send();  // a one-way REQUEST had no response to restore
  return !requests_.request_ok(payload, h.length, h.sequence);
}

// ---- faults ---------------------------------------------------------------------------------

StreamTally::Fault stream_fault_of(Fault fault) noexcept {
  if (fault == Fault::drop_stream_message) return StreamTally::Fault::drop_message;
  if (fault == Fault::flip_stream_byte) return StreamTally::Fault::flip_byte;
  return StreamTally::Fault::none;
}

}  // namespace ipclab
