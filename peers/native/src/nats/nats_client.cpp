// The nats client (PROTOCOL.md 4.11): a link of links.hpp over one NATS connection, so rr and
// stream (patterns.hpp) run over it unchanged: a frame is published to NAME.requests with the
// client's one inbox as its reply subject, and its answer is the inbox's next message; a stream
// message is published with no reply subject, past the window after a credit taken from
// NAME.credits. And the hooks main() installs.
#include <cstring>
#include <string>

#include "error.hpp"
#include "frame.hpp"
#include "nats_connection.hpp"
#include "nats_hooks.hpp"
#include "options.hpp"
#include "patterns.hpp"

namespace ipclab::nats {

void serve(const ServeOptions& o);  // nats_server.cpp

namespace {

class NatsLink {
 public:
  NatsLink(const NatsEndpoint& endpoint, const DriveOptions& o)
      : conn_(endpoint, o.io_timeout_ns),
        subjects_(endpoint.name),
        inbox_(conn_, ""),
        credits_(conn_, subjects_.credits),
        timeout_ms_(o.io_timeout_ns > 0 ? timeout_ms(o.io_timeout_ns) : 0),
        sender_(o.message_size) {
    conn_.flush(timeout_ms_ > 0 ? timeout_ms_ : 30'000);  // both subscriptions on the server
  }

  // The link interface of links.hpp.
  static std::size_t capacity_for(std::size_t frame) { return frame; }
  void send(const std::uint8_t* p, std::size_t n) {
    conn_.publish(subjects_.requests, inbox_.subject().c_str(), p, n);
  }
  std::size_t receive(std::uint8_t* buf, std::size_t capacity, std::size_t /*expected*/) {
    const Message m = inbox_.next(timeout_ms_);
    if (m.no_responders())
      throw PeerError(ErrorKind::io,
                      "no responder on " + subjects_.requests + " (the server's 503)");
    const std::size_t got = m.size();
    std::memcpy(buf, m.data(), got < capacity ? got : capacity);
    // A MARK_ACK opens a stream's window (4.11): messages are counted from it, and what credits
    // the stream before left are all in by now (one server keeps one publisher's order).
    if (got == kHeaderSize && buf[kOffKind] == static_cast<std::uint8_t>(FrameKind::mark_ack)) {
      sender_.open();
      credits_.discard_pending();
    }
    return got;
  }
  // A stream message (11.1): one publish, after a credit where the window is full.
  void send_message(const std::uint8_t* p, std::size_t n, std::uint64_t /*sequence*/) {
    if (sender_.next_needs_credit()) credits_.next(timeout_ms_);
    conn_.publish(subjects_.requests, nullptr, p, n);
  }

 private:
  Connection conn_;  // destroyed last: its subscriptions go first
  const Subjects subjects_;
  Subscription inbox_, credits_;
  const std::int64_t timeout_ms_;  // 0: none (--io-timeout 0)
  CreditedSender sender_;
};

}  // namespace

void install() {
  install_nats_hooks({drive_over<NatsLink, NatsEndpoint>, serve, library_version});
}

}  // namespace ipclab::nats
