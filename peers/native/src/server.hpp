// The server side (`serve`): reads whole frames off each family of transports, hands them to
// the Responder (responder.hpp: what each frame is answered with) and rejects malformed frames
// (PROTOCOL.md sections 2, 3, 6). run_serve looks the mechanism up in the table
// (mechanisms.hpp); the table's rows set the transport up and hand it to one of the servers
// below, which announce READY and serve until the lifecycle ends the process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frame.hpp"
#include "options.hpp"
#include "responder.hpp"
#include "transport/file.hpp"
#include "transport/message.hpp"
#include "transport/stream.hpp"
#include "transport/transport.hpp"

namespace ipclab {

struct ConnectionOutcome {
  enum class End { closed, rejected, io_error };
  End end = End::closed;
  std::string detail;  // rejected: the reason; io_error: the message
  std::uint64_t requests = 0;
};

// Serves one stream connection until a clean end of stream, a malformed frame or an io error.
// Never throws PeerError (io and timeouts become the outcome). The corrupted count runs across
// connections until an END (pattern short sends END over a connection of its own, 11.2).
// The frames are read as they come; the messages a MARK announces (11.1) are read off the
// stream as many at a time as the kernel has, or (read_size, --read-size) with reads that ask
// for at most read_size bytes each and never for bytes past the last announced message.
// (stream_connection.cpp)
class StreamConnectionHandler {
 public:
  explicit StreamConnectionHandler(const ServerConfig& config, std::size_t read_size = 0);
  ConnectionOutcome serve(Stream& stream);

 private:
  const char* take_frame(Stream& stream, ConnectionOutcome& out);
  const char* take_messages(Stream& stream);
  // One read of at most `most` bytes after the unconsumed ones (at most the room left); false
  // at end of stream.
  bool fill(Stream& stream, std::size_t most = SIZE_MAX);
  std::size_t message_read() const noexcept;  // what a read of message bytes asks for
  void compact() noexcept;    // moves the unconsumed bytes to the buffer's start
  void grow(std::size_t need);  // the buffer is full of a frame's or message's first bytes

  Responder responder_;
  std::size_t read_size_;  // 0: greedy
  std::uint64_t corrupted_ = 0;
  std::unique_ptr<std::uint8_t[]> buf_;
  std::size_t capacity_;
  std::size_t start_ = 0, end_ = 0;  // the unconsumed bytes are buf_[start_, end_)
};

// A buffer that keeps its first `keep` bytes and grows to hold at least `need` (only ever after
// a valid header: a malformed frame never makes it allocate; and, to a header's claimed length,
// only in steps of grown_size as its bytes arrive). Its new bytes are not initialised.
void ensure_capacity(std::unique_ptr<std::uint8_t[]>& buf, std::size_t& capacity,
                     std::size_t need, std::size_t keep);

// Frames that arrive whole, one per unit (a broker's message, 4.7), from any client: the
// stream messages a MARK announces (another size where one is due: rejected, the rest given up,
// as on uds-dgram), section 2's checks (a malformed frame: the stderr line, dropped), the answer,
// and the corrupted count since the previous END of any client.
class WholeFrameServer {
 public:
  explicit WholeFrameServer(const ServeOptions& o);
  // The answer to one unit of n bytes (size 0: nothing to send), valid until the next call;
  // then done() once it went out (the request's payload is checked only then).
  Responder::Answer take(const std::uint8_t* unit, std::size_t n);
  // check_payload false: the payload was never written (--sample-write header, 4.12), so it is
  // not read either.
  void done(bool check_payload = true) {
    if (check_payload && payload_ != nullptr && responder_.after_send(header_, payload_))
      ++corrupted_;
    payload_ = nullptr;
  }
  // The stream messages the last MARK announced that have not come yet, and their size (a
  // server whose messages come apart from its frames, zmq 4.8, reads them first).
  std::uint64_t pending() const noexcept { return responder_.pending(); }
  std::size_t message_size() const noexcept { return responder_.message_size(); }

 private:
  Responder responder_;
  std::uint64_t corrupted_ = 0;
  Header header_{};
  const std::uint8_t* payload_ = nullptr;  // set by take() for a frame it answered, until done()
};

// Runs `serve`: returns the exit code (or exits through the lifecycle on signals/stdin EOF).
int run_serve(const ServeOptions& options);

// The servers, one per family of transports; each announces READY with the transport's
// endpoint and never returns (a fatal error throws PeerError).
[[noreturn]] void serve_streams(std::unique_ptr<StreamServer> server, const ServeOptions& o);
[[noreturn]] void serve_datagrams(DatagramSocket socket, const ServeOptions& o);
// (channel_servers.cpp)
[[noreturn]] void serve_messages(MessageServer server, const ServeOptions& o);
[[noreturn]] void serve_files(const DirEndpoint& dir, bool poll, const ServeOptions& o);

}  // namespace ipclab
