// The nats responder (PROTOCOL.md 4.11): one connection to the NATS server, one subscription to
// NAME.requests; each message taken as a frame and answered as a section 2 server would
// (WholeFrameServer, server.hpp) on the message's reply subject, or, while a MARK's messages are
// due, counted, with a credit published to NAME.credits per K(S) of them. The lifecycle
// (lifecycle.cpp) ends the process on a signal or stdin's end.
#include <string>

#include "error.hpp"
#include "frame.hpp"
#include "nats_connection.hpp"
#include "options.hpp"
#include "result.hpp"
#include "server.hpp"
#include "server_common.hpp"

namespace ipclab::nats {

namespace {

class Responder {
 public:
  Responder(const ServeOptions& o, Connection& conn, const Subjects& subjects)
      : conn_(conn), subjects_(subjects), frames_(o) {}

  [[noreturn]] void run(Subscription& requests) {
    for (;;) answer(requests.next(0));
  }

 private:
  void answer(const Message& m) {
    const bool message = frames_.pending() != 0;
    const std::uint8_t kind = m.size() >= kHeaderSize ? m.data()[kOffKind] : 0;
    const ipclab::Responder::Answer a = frames_.take(m.data(), m.size());
    if (message) {
      if (++taken_ % every_ == 0) conn_.publish(subjects_.credits, nullptr, nullptr, 0);
      return;
    }
    const char* reply = m.reply();
    if (a.size == 0) {  // rejected (and said): the empty answer (4.11), where one can go
      if (reply != nullptr) conn_.publish(reply, nullptr, nullptr, 0);
      return;
    }
    if (reply == nullptr) {  // nowhere to answer (only a stream message comes without one)
      report_rejected("no reply-to");
      return;
    }
    if (kind == static_cast<std::uint8_t>(FrameKind::mark)) {  // credits count from here
      taken_ = 0;
      every_ = credit_every(stream_window(frames_.message_size()));
    }
    conn_.publish(reply, nullptr, a.data, a.size);
    frames_.done();  // out (nats.c sends at once): the request's payload is checked now
  }

  Connection& conn_;
  const Subjects& subjects_;
  WholeFrameServer frames_;
  std::uint64_t taken_ = 0, every_ = 1;  // messages taken since the MARK; a credit per every_
};

}  // namespace

void serve(const ServeOptions& o) {
  const NatsEndpoint& endpoint = endpoint_as<NatsEndpoint>(o.endpoint);
  const std::string version = server_version(endpoint.address);
  Connection conn(endpoint, 0);
  const Subjects subjects(endpoint.name);
  Subscription requests(conn, subjects.requests);
  conn.flush(30'000);  // the subscription is on the server before READY
  announce_ready(endpoint.text, o.mechanism_name,
                 ", \"broker\": " + json_string("NATS " + version));
  Responder(o, conn, subjects).run(requests);
}

}  // namespace ipclab::nats
