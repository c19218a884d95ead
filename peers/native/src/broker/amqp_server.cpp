// The activemq responder (PROTOCOL.md 4.7): consumes ipclab.<pid>.requests and answers every
// message as a section 2 server would (WholeFrameServer, server.hpp) to its reply-to, with its
// correlation-id. No hand-off here: the container runs on the main thread and everything
// happens in its events; the lifecycle (lifecycle.cpp) ends the process on a signal or stdin's
// end, as for the other servers. Like every sender of 4.7 it waits for the broker's settlement
// of a reply before it takes the next message (a persistent reply is settled once it is stored):
// what arrives meanwhile waits in order, as it would in a blocking sender's receive buffer.
#include <unistd.h>

#include <proton/connection.hpp>
#include <proton/container.hpp>
#include <proton/delivery.hpp>
#include <proton/message.hpp>
#include <proton/message_id.hpp>
#include <proton/messaging_handler.hpp>
#include <proton/receiver.hpp>
#include <proton/sender.hpp>
#include <proton/tracker.hpp>
#include <proton/transport.hpp>

#include <deque>
#include <map>
#include <string>

#include "amqp_session.hpp"
#include "error.hpp"
#include "options.hpp"
#include "result.hpp"
#include "server.hpp"

namespace ipclab::broker {

namespace {

class Responder : public proton::messaging_handler {
 public:
  explicit Responder(const ServeOptions& o)
      : endpoint_(endpoint_as<AmqpEndpoint>(o.endpoint)),
        queue_("ipclab." + std::to_string(::getpid()) + ".requests"),
        durable_(o.persistent),
        frames_(o) {}
  const std::string& failure() const { return failure_; }

 private:
  void on_container_start(proton::container& c) override {
    proton::connection connection = c.connect(endpoint_.url);
    connection.open_receiver(queue_);
  }
  // The queue exists once the broker attached the receiver: clients may send from now on.
  void on_receiver_open(proton::receiver&) override {
    announce_ready(endpoint_.url + "/" + queue_, "activemq");
  }
  void on_message(proton::delivery& d, proton::message& m) override {
    if (unsettled_) {
      waiting_.push_back(m);
    } else {
      answer(d.connection(), m);
    }
  }
  void answer(proton::connection c, const proton::message& m);
  // The reply's settlement: the next message may be answered.
  void settled(proton::tracker& t) {
    unsettled_ = false;
    while (!unsettled_ && !waiting_.empty()) {
      proton::message m = std::move(waiting_.front());
      waiting_.pop_front();
      answer(t.connection(), m);
    }
  }
  void on_tracker_accept(proton::tracker& t) override { settled(t); }
  void on_tracker_reject(proton::tracker& t) override {
    print_line("the broker rejected a reply");  // its client fails at --io-timeout
    settled(t);
  }
  void on_tracker_release(proton::tracker& t) override { on_tracker_reject(t); }
  // A reply queue's sender, opened on first use and kept (a client sends many frames).
  proton::sender& sender_to(proton::connection c, const std::string& address) {
    auto it = senders_.find(address);
    if (it == senders_.end()) it = senders_.emplace(address, c.open_sender(address)).first;
    return it->second;
  }
  void stop(proton::container& c, const std::string& why) {
    if (failure_.empty()) failure_ = why;
    c.stop();
  }
  void on_transport_error(proton::transport& t) override {
    stop(t.connection().container(), describe(t.error()));
  }
  void on_connection_error(proton::connection& c) override {
    stop(c.container(), describe(c.error()));
  }
  void on_transport_close(proton::transport& t) override {
    stop(t.connection().container(), "the broker closed the connection");
  }

  const AmqpEndpoint endpoint_;
  const std::string queue_;
  const bool durable_;
  WholeFrameServer frames_;
  std::map<std::string, proton::sender> senders_;
  proton::binary body_;  // the message being answered (kept: its capacity is reused)
  bool unsettled_ = false;                // a reply is not settled yet
  std::deque<proton::message> waiting_;  // what came meanwhile, in order
  std::string failure_;
};

void Responder::answer(proton::connection c, const proton::message& m) {
  if (!message_bytes(m, body_)) {
    print_line("rejected frame: the message's body is not one data section");
    return;
  }
  const auto out = frames_.take(body_.data(), body_.size());
  if (out.size == 0) return;  // a stream message, or a rejected frame (dropped)
  if (m.reply_to().empty()) {
    print_line("rejected frame: no reply-to");
    frames_.done();
    return;
  }
  proton::message reply = frame_message(out.data, out.size, durable_);
  reply.correlation_id(m.correlation_id());
  sender_to(c, m.reply_to()).send(reply);
  unsettled_ = true;
  frames_.done();
}

}  // namespace

void serve(const ServeOptions& o) {
  Responder responder(o);
  proton::container container(responder);
  container.run();
  throw PeerError(ErrorKind::io, "the broker connection ended: " + responder.failure());
}

}  // namespace ipclab::broker
