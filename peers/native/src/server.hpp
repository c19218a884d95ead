// The server side (`serve`): answers REQUESTs with RESPONSEs, ENDs with END_ACKs, rejects
// malformed frames (PROTOCOL.md sections 2, 3, 6). run_serve looks the mechanism up in the table
// (mechanisms.hpp); the table's rows set the transport up and hand it to one of the servers
// below, which announce READY and serve until the lifecycle ends the process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "options.hpp"
#include "payload.hpp"
#include "transport/file.hpp"
#include "transport/message.hpp"
#include "transport/stream.hpp"
#include "transport/transport.hpp"

namespace ipclab {

struct ServerConfig {
  std::uint64_t seed = 1;
  bool flip_response_byte = false;
};

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


struct ConnectionOutcome {
  enum class End { closed, rejected, io_error };
  End end = End::closed;
  std::string detail;  // rejected: the reason; io_error: the message
  std::uint64_t requests = 0;
};

// Serves one stream connection until a clean end of stream, a malformed frame or an io error.
// Never throws PeerError (io and timeouts become the outcome).
class StreamConnectionHandler {
 public:
  explicit StreamConnectionHandler(const ServerConfig& config);
  ConnectionOutcome serve(Stream& stream);

 private:
  RequestHandler handler_;
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
