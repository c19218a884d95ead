// What a server model does with each connection it accepted, whichever pattern it serves:
// burst (PROTOCOL.md 11.4.1) one REQUEST and its RESPONSE, then the close; load (11.5.1)
// section 2's rr exchange, REQUEST -> RESPONSE repeatedly, until END -> END_ACK or the end of
// stream. The blocking models hand the connection to `serve`; the event loops read each frame
// themselves, check its header with `check`, send what answer_frame gives and go on as
// after_reply says. So each model is written once for both patterns.
#pragma once

#include <cstddef>
#include <cstdint>

#include "burst/records.hpp"
#include "frame.hpp"
#include "responder.hpp"

namespace ipclab::burst {

struct Server;

struct Exchange {
  // The header a frame must have: nullptr or section 2's reason for rejecting it.
  const char* (*check)(const Header& h) noexcept;
  // A blocking model's whole connection (fd blocking, closed by the caller); its outcome.
  ConnError (*serve)(Server& s, int fd, ConnTimes& t);
  bool persistent;  // more than one frame per connection (load)
};
extern const Exchange kBurstExchange;
extern const Exchange kLoadExchange;

// burst: section 2's checks, REQUEST only. load: REQUEST or END with flags 0 (a load server
// serves no stream and no one-way short, 11), in section 2's order.
const char* check_burst_header(const Header& h) noexcept;
const char* check_load_header(const Header& h) noexcept;

// The responder configuration of a server's tasks (load: --fault flip-response-byte too).
ServerConfig config_of(const Server& s) noexcept;

// An event loop's answer to one whole, valid frame: a REQUEST's RESPONSE (from `answer`,
// `response` true: call answer.after_send() once it is sent; held first by a load fault) or
// an END's END_ACK (written to `ack`, kEndAckSize bytes).
struct Reply {
  const std::uint8_t* data;
  std::size_t size;
  bool response;
};
Reply answer_frame(Server& s, RequestHandler& answer, const Header& h, std::uint8_t* ack,
                   std::uint64_t corrupted);
// After the reply went out: checks a REQUEST's payload (load: counts it as corrupted). True if
// the connection goes on with its next frame (load, after a RESPONSE); else it ends with
// `error`.
bool after_reply(const Server& s, RequestHandler& answer, const Header& h,
                 const std::uint8_t* payload, std::uint64_t& corrupted, ConnError& error);
// The client closed with `got` bytes of a frame read: burst, eof; load, a clean close
// between frames (none), else a rejected truncated frame (protocol, the reason on stderr).
ConnError closed_after(const Server& s, std::size_t got);

}  // namespace ipclab::burst
