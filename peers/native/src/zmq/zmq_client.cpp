// The zmq-tcp and zmq-ipc client (PROTOCOL.md 4.8): a link of links.hpp over a REQ socket (rr's
// frames, a stream's control frames) and, for a stream, a PUSH socket for its messages, so rr
// and stream (patterns.hpp) run over it unchanged; and the hooks main() installs.
#include <algorithm>
#include <memory>
#include <string>

#include "error.hpp"
#include "frame.hpp"
#include "options.hpp"
#include "patterns.hpp"
#include "zmq_hooks.hpp"
#include "zmq_socket.hpp"

namespace ipclab::zeromq {

void serve(const ServeOptions& o);  // zmq_server.cpp

namespace {

class ZmqLink {
 public:
  ZmqLink(const ZmqEndpoint& endpoint, const DriveOptions& o)
      : endpoint_(endpoint), o_(o), req_(context_, ZMQ_REQ) {
    const bool stream = o.pattern == OneWayStream::name;
    const std::size_t rr_answer = kHeaderSize + std::uint64_t{o.response_size};
    req_.set_max_message(stream ? kStreamAckSize : std::max(rr_answer, kEndAckSize));
    req_.set(ZMQ_RCVTIMEO, timeout_ms(o.io_timeout_ns));
    req_.set(ZMQ_SNDTIMEO, timeout_ms(o.io_timeout_ns));
    req_.connect(endpoint.requests);
  }

  // The link interface of links.hpp.
  static std::size_t capacity_for(std::size_t frame) { return frame; }
  void send(const std::uint8_t* p, std::size_t n) { req_.send(p, n); }
  std::size_t receive(std::uint8_t* buf, std::size_t capacity, std::size_t /*expected*/) {
    const std::size_t got = req_.receive(buf, capacity);
    // The server has set its stream socket's mark once it answers a MARK: the PUSH connects now.
    if (push_ == nullptr && got == kHeaderSize &&
        buf[kOffKind] == static_cast<std::uint8_t>(FrameKind::mark_ack))
      connect_push();
    return got;
  }
  // A stream message (11.1): one message on the PUSH socket.
  void send_message(const std::uint8_t* p, std::size_t n, std::uint64_t /*sequence*/) {
    if (push_ == nullptr) throw PeerError(ErrorKind::protocol, "a message before any MARK_ACK");
    push_->send(p, n);
  }

 private:
  void connect_push() {
    push_ = std::make_unique<Socket>(context_, ZMQ_PUSH);
    push_->set(ZMQ_SNDHWM, stream_hwm(o_.message_size));
    push_->set(ZMQ_SNDTIMEO, timeout_ms(o_.io_timeout_ns));
    push_->connect(endpoint_.stream);
  }

  const ZmqEndpoint endpoint_;
  const DriveOptions& o_;
  Context context_;  // destroyed last: its sockets close first
  Socket req_;
  std::unique_ptr<Socket> push_;
};

}  // namespace

void install() { install_zmq_hooks({drive_two_sockets<ZmqLink>, serve, library_version}); }

}  // namespace ipclab::zeromq
