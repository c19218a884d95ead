// The server side (`serve`): answers REQUESTs with RESPONSEs, ENDs with END_ACKs, rejects
// malformed frames (PROTOCOL.md sections 2, 3, 6). run_serve looks the mechanism up in the table
// (mechanisms.hpp); the table's rows set the transport up and hand it to one of the servers
// below, which announce READY and serve until the lifecycle ends the process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frame.hpp"
#include "options.hpp"
#include "payload.hpp"
#include "tally.hpp"
#include "transport/file.hpp"
#include "transport/message.hpp"
#include "transport/stream.hpp"
#include "transport/transport.hpp"

namespace ipclab {

struct ServerConfig {
  std::uint64_t seed = 1;
  bool flip_response_byte = false;
  StreamTally::Fault stream_fault = StreamTally::Fault::none;
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

 private:
  ServerConfig config_;
  std::vector<std::uint8_t> frame_;  // header + response base, stamped in place per frame
  std::int64_t frame_wanted_ = -1;   // payload size frame_ was built for
  std::uint8_t head_[8] = {};        // unstamped first bytes of the response base
  std::uint32_t last_wanted_ = 0;
  BaseCache request_base_;
};

// What every server answers to one whole, valid frame of any kind (sections 2 and 11): a
// RESPONSE to a REQUEST, nothing to DATA (counted and summed), MARK_ACK to MARK, END_ACK to END
// (a stream's seven figures after a MARK, else the corrupted count). The servers of each family
// only move the bytes.
class Responder {
 public:
  explicit Responder(const ServerConfig& config);

  struct Answer {
    const std::uint8_t* data;
    std::size_t size;  // 0: nothing to send (DATA)
  };
  // The frame to send back, valid until the next call. corrupted: what an rr END_ACK carries;
  // END resets it to 0.
  Answer answer(const Header& h, const std::uint8_t* payload, std::uint64_t& corrupted);
  // After the answer went out: whether a REQUEST's payload was corrupted (checked only now, so
  // the check costs the round trip nothing); false for the other kinds.
  bool after_send(const Header& h, const std::uint8_t* payload);
  // The client went away (end of connection) or a frame was rejected: no stream goes on.
  void stream_over() noexcept { streaming_ = false; }

 private:
  RequestHandler requests_;
  StreamTally tally_;
  bool streaming_ = false;            // a MARK came and its END has not
  std::uint64_t mark_sequence_ = 0;   // (a udp client resends MARK until it has the answer)
  bool repeat_end_ = false;           // control_ holds the stream END_ACK of end_sequence_
  std::uint64_t end_sequence_ = 0;    // (a udp client resends END until it has the answer)
  std::uint8_t control_[kStreamAckSize] = {};  // MARK_ACK or END_ACK
};

struct ConnectionOutcome {
  enum class End { closed, rejected, io_error };
  End end = End::closed;
  std::string detail;  // rejected: the reason; io_error: the message
  std::uint64_t requests = 0;
};

// Serves one stream connection until a clean end of stream, a malformed frame or an io error.
// Never throws PeerError (io and timeouts become the outcome). The corrupted count runs across
// connections until an END (pattern short sends END over a connection of its own, 11.2).
class StreamConnectionHandler {
 public:
  explicit StreamConnectionHandler(const ServerConfig& config);
  ConnectionOutcome serve(Stream& stream);

 private:
  Responder responder_;
  std::uint64_t corrupted_ = 0;
  std::unique_ptr<std::uint8_t[]> buf_;
  std::size_t capacity_;
};

// Runs `serve`: returns the exit code (or exits through the lifecycle on signals/stdin EOF).
int run_serve(const ServeOptions& options);

// The servers, one per family of transports; each announces READY with the transport's
// endpoint and never returns (a fatal error throws PeerError).
[[noreturn]] void serve_streams(std::unique_ptr<StreamServer> server, const ServeOptions& o);
[[noreturn]] void serve_datagrams(DatagramSocket socket, const ServeOptions& o);
[[noreturn]] void serve_messages(MessageServer server, const ServeOptions& o);
[[noreturn]] void serve_files(const DirEndpoint& dir, bool poll, const ServeOptions& o);

}  // namespace ipclab
