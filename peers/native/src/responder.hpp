// What every server answers to a frame (PROTOCOL.md sections 2, 3 and 11), whatever moves the
// bytes: the RESPONSE of a REQUEST (built once per size, stamped per round trip), the stream
// tally of the bare messages a MARK announces, MARK_ACK, END_ACK. The servers of server.hpp and the burst servers use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "frame.hpp"
#include "options.hpp"
#include "payload.hpp"
#include "tally.hpp"

namespace ipclab {

struct ServerConfig {
  std::uint64_t seed = 1;
  bool flip_response_byte = false;
  StreamTally::Fault stream_fault = StreamTally::Fault::none;
  // The largest stream message this server takes (11.1 item 10): udp 65507, uds-dgram its D.
  std::uint64_t max_message = kMaxPayload;
};

// The stream fault (11.1 "Faults") of --fault, none for the others.
StreamTally::Fault stream_fault_of(Fault fault) noexcept;

// What both the stream and the udp server do with a valid frame. Keeps the response frame and
// the expected request base for the last sizes seen, so a round trip only stamps 8 bytes.
class RequestHandler {
 public:
  explicit RequestHandler(const ServerConfig& config);

  // The RESPONSE frame (header + payload) answering REQUEST (sequence, length, wanted), ready
  // to send. Valid until the next call; call after_send() once it has been sent.
  const std::uint8_t* response(std::uint64_t sequence, std::uint32_t request_length,
                               std::uint32_t wanted);
  void after_send() noexcept;

  // Whether a REQUEST payload has exactly the expected bytes (checked after the response).
  bool request_ok(const std::uint8_t* payload, std::uint32_t length, std::uint64_t sequence);

  // Writes the 32-byte END_ACK for an END with this sequence.
  static void end_ack(std::uint8_t* out, std::uint64_t sequence, std::uint64_t corrupted) noexcept;
  // Writes the 40-byte END_ACK for a one-way END (flags NO_REPLY, 11.2).
  static void one_way_end_ack(std::uint8_t* out, std::uint64_t sequence, std::uint64_t corrupted,
                              std::uint64_t received) noexcept;

 private:
  ServerConfig config_;
  std::vector<std::uint8_t> frame_;  // header + response base, stamped in place per frame
  std::int64_t frame_wanted_ = -1;   // payload size frame_ was built for
  std::uint8_t head_[8] = {};        // unstamped first bytes of the response base
  std::uint32_t last_wanted_ = 0;
  BaseCache request_base_;
};

// What every server answers to one whole, valid frame of any kind (sections 2 and 11): a
// RESPONSE to a REQUEST, nothing to a one-way REQUEST (flags NO_REPLY: counted, 11.2), MARK_ACK
// to MARK, END_ACK to END (a stream's seven figures after a MARK; a one-way END's corrupted and
// received counts; else the corrupted count). After a MARK, pending() messages of
// message_size() bytes follow that are not frames: the servers of each family read them their
// own way and hand each to message(). The servers only move the bytes.
class Responder {
 public:
  explicit Responder(const ServerConfig& config);

  struct Answer {
    const std::uint8_t* data;
    std::size_t size;  // 0: nothing to send (DATA)
  };
  // What a valid header's payload can still make wrong: a MARK announcing messages of 0 bytes
  // or above this server's limit ("bad stream frame"); nullptr if nothing.
  const char* check(const Header& h, const std::uint8_t* payload) const noexcept {
    if (h.kind != static_cast<std::uint8_t>(FrameKind::mark)) return nullptr;
    return check_mark_payload(decode_mark(payload), max_message_);
  }
  // The frame to send back, valid until the next call. corrupted: what an rr END_ACK carries;
  // END resets it to 0.
  Answer answer(const Header& h, const std::uint8_t* payload, std::uint64_t& corrupted);
  // The messages the last MARK announced that have not come yet, and their size.
  std::uint64_t pending() const noexcept { return pending_; }
  std::size_t message_size() const noexcept { return message_size_; }
  // A MARK came and its END has not (udp tells messages from control frames only then).
  bool streaming() const noexcept { return streaming_; }
  // One whole message of message_size() bytes.
  void message(const std::uint8_t* bytes) noexcept {
    tally_.add_message(bytes);
    if (pending_ != 0) --pending_;
  }
  // udp: a datagram of another size while streaming, counted as a gap and not summed.
  void odd_datagram() noexcept { tally_.count_gap(); }
  // uds-dgram: a datagram of another size where a message was due (11.1) gives up the
  // messages still announced; the stream's counts stay, so its END_ACK tells the client.
  void give_up_announced() noexcept { pending_ = 0; }
  // After the answer went out: whether a REQUEST's payload was corrupted (checked only now, so
  // the check costs the round trip nothing); false for the other kinds. Inline, so a server's
  // loop tests the kind in place and calls only for a REQUEST.
  bool after_send(const Header& h, const std::uint8_t* payload) {
    if (h.kind != static_cast<std::uint8_t>(FrameKind::request)) return false;
    return after_request(h, payload);
  }
  // The client went away (end of connection) or a frame was rejected: no stream goes on.
  void stream_over() noexcept {
    streaming_ = false;
    pending_ = 0;
  }

 private:
  bool after_request(const Header& h, const std::uint8_t* payload);
  Answer end_one_way(const Header& h, std::uint64_t& corrupted);
  Answer mark(const Header& h, const std::uint8_t* payload);

  RequestHandler requests_;
  StreamTally tally_;
  std::uint64_t seed_;
  std::uint64_t max_message_;
  std::uint64_t pending_ = 0;       // messages the last MARK announced still to come
  std::size_t message_size_ = 0;
  std::uint64_t one_way_received_ = 0;  // one-way REQUESTs since the last END (any connection)
  bool streaming_ = false;            // a MARK came and its END has not
  std::uint64_t mark_sequence_ = 0;   // (a udp client resends MARK until it has the answer)
  bool repeat_end_ = false;           // control_ holds the stream END_ACK of end_sequence_
  std::uint64_t end_sequence_ = 0;    // (a udp client resends END until it has the answer)
  std::uint8_t control_[kStreamAckSize] = {};  // MARK_ACK or END_ACK
};

}  // namespace ipclab
