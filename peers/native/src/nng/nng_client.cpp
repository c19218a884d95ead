// The nng-tcp and nng-ipc client (PROTOCOL.md 4.9): a link of links.hpp over a REQ socket (rr's
// frames, a stream's control frames) and, for a stream, a PUSH socket for its messages, so rr
// and stream (patterns.hpp) run over it unchanged; and the hooks main() installs.
//
// What keeps a round trip down to the library's own cost (a plain nng_send/nng_recv ping-pong):
// - NNG_OPT_REQ_RESENDTIME off (NNG_DURATION_INFINITE). REQ resends a request that has had no
//   reply within it (a minute by default): that would be a second REQUEST the server answers, a
//   protocol error here, and every send would arm libnng's timer (a lock and, whenever the new
//   deadline is the earliest, a wake of its timer thread). Off, a dropped connection fails the
//   waiting receive at once (NNG_ECONNRESET) instead of being retried.
// - One dial, synchronous, before the clock: the pipes exist when the first frame goes.
// - Blocking nng_send/nng_recvmsg on this thread. libnng's own threads (its poller, task queue,
//   timer; 1.5 has no run-time setting for how many) do the socket I/O either way: the
//   hand-off from them to this thread is the library's cost, which its own perf tool pays too.
// - The receive timeout (--io-timeout) is a deadline on libnng's expiry queue, which wakes its
//   thread only when a deadline is earlier than every one before it, not per receive.
// - TCP_NODELAY on every tcp dialer and listener (libnng's default, set so it is stated).
#include <algorithm>
#include <memory>
#include <string>

#include <nng/nng.h>
#include <nng/protocol/pipeline0/push.h>
#include <nng/protocol/reqrep0/req.h>

#include "endpoint.hpp"
#include "error.hpp"
#include "frame.hpp"
#include "nng_hooks.hpp"
#include "nng_socket.hpp"
#include "options.hpp"
#include "patterns.hpp"

namespace ipclab::nanomsg {

void serve(const ServeOptions& o);  // nng_server.cpp

namespace {

class NngLink {
 public:
  NngLink(const ZmqEndpoint& endpoint, const DriveOptions& o) : req_(nng_req0_open) {
    const bool stream = o.pattern == OneWayStream::name;
    const nng_duration timeout = timeout_ms(o.io_timeout_ns);
    const std::size_t rr_answer = kHeaderSize + std::uint64_t{o.response_size};
    req_.set_size(NNG_OPT_RECVMAXSZ,
                  kRequestIdSize + (stream ? kStreamAckSize : std::max(rr_answer, kEndAckSize)));
    req_.set_ms(NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE);
    req_.set_ms(NNG_OPT_RECVTIMEO, timeout);
    req_.set_ms(NNG_OPT_SENDTIMEO, timeout);
    req_.dial(endpoint.requests);
    if (!stream) return;
    push_ = std::make_unique<Socket>(nng_push0_open);
    push_->set_int(NNG_OPT_SENDBUF, stream_buffer(o.message_size));
    push_->set_ms(NNG_OPT_SENDTIMEO, timeout);
    push_->dial(endpoint.stream);
  }

  // The link interface of links.hpp.
  static std::size_t capacity_for(std::size_t frame) { return frame; }
  void send(const std::uint8_t* p, std::size_t n) { req_.send(p, n); }
  std::size_t receive(std::uint8_t* buf, std::size_t capacity, std::size_t /*expected*/) {
    answer_.receive(req_);
    std::copy_n(answer_.data(), std::min(capacity, answer_.size()), buf);
    return answer_.size();
  }
  // A stream message (11.1): one message on the PUSH socket.
  void send_message(const std::uint8_t* p, std::size_t n, std::uint64_t /*sequence*/) {
    if (push_ == nullptr) throw PeerError(ErrorKind::protocol, "a message outside a stream");
    push_->send(p, n);
  }

 private:
  Socket req_;
  std::unique_ptr<Socket> push_;
  Message answer_;
};

}  // namespace

void install() { install_nng_hooks({drive_two_sockets<NngLink>, serve, library_version}); }

}  // namespace ipclab::nanomsg
