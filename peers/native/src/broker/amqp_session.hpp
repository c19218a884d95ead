// The activemq client's connection (PROTOCOL.md 4.7): one connection and one session, a sender
// to the responder's queue and a receiver on the client's reply queue ipclab.<pid>.replies,
// both open before the first frame. Proton C++ is event driven, the patterns (patterns.hpp)
// call a blocking send and receive: the container runs on a thread of its own and the pattern's
// thread hands each message over (work_queue) and waits for the broker's settlement and for the
// reply on a condition variable. So AmqpLink is a link of links.hpp: rr and stream run over it
// unchanged (README.md "activemq" says what the hand-off costs).
#pragma once

#include <proton/binary.hpp>
#include <proton/connection.hpp>
#include <proton/container.hpp>
#include <proton/message.hpp>
#include <proton/messaging_handler.hpp>
#include <proton/receiver.hpp>
#include <proton/sender.hpp>
#include <proton/work_queue.hpp>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "endpoint.hpp"

namespace ipclab::broker {

// One frame (or stream message) as one AMQP message: its bytes as one data section, durable
// per --delivery.
proton::message frame_message(const std::uint8_t* p, std::size_t n, bool durable);
// A received message's data section into out; false when its body is something else.
bool message_bytes(const proton::message& m, proton::binary& out);
// What an AMQP error condition says, for an io error's message.
std::string describe(const proton::error_condition& e);

class AmqpLink : public proton::messaging_handler {
 public:
  // Connects and opens both links; io error if the broker cannot be reached or refuses them.
  AmqpLink(const AmqpEndpoint& endpoint, bool durable, std::int64_t io_timeout_ns);
  ~AmqpLink() override;
  AmqpLink(const AmqpLink&) = delete;
  AmqpLink& operator=(const AmqpLink&) = delete;

  // The link interface of links.hpp.
  static std::size_t capacity_for(std::size_t frame) { return frame; }
  // A frame: reply-to and correlation-id (its sequence) set; returns once the broker accepted it.
  void send(const std::uint8_t* p, std::size_t n);
  // A stream message (11.1): no reply is due, so neither is set; waits for the settlement too.
  void send_message(const std::uint8_t* p, std::size_t n, std::uint64_t /*sequence*/);
  // The next reply's bytes (at most capacity copied); returns the message's real size.
  std::size_t receive(std::uint8_t* buf, std::size_t capacity, std::size_t /*expected*/);

 private:
  void hand_over(proton::message message);
  std::int64_t receive_deadline() const;
  void fail(const std::string& why);
  void stop() noexcept;  // closes the connection and joins the container's thread

  // Proton's events, on the container's thread.
  void on_container_start(proton::container& c) override;
  void on_connection_open(proton::connection& c) override;
  void on_sender_open(proton::sender& s) override;
  void on_receiver_open(proton::receiver& r) override;
  void on_message(proton::delivery& d, proton::message& m) override;
  void on_tracker_accept(proton::tracker& t) override;
  void on_tracker_reject(proton::tracker& t) override;
  void on_tracker_release(proton::tracker& t) override;
  void on_transport_error(proton::transport& t) override;
  void on_connection_error(proton::connection& c) override;
  void on_transport_close(proton::transport& t) override;

  const AmqpEndpoint endpoint_;
  const std::string reply_queue_;
  const bool durable_;
  const std::int64_t io_timeout_ns_;
  proton::container container_;
  proton::connection connection_;  // set on the container's thread before links_open_
  proton::sender sender_;
  std::thread thread_;

  std::mutex mutex_;  // guards what follows; cv_ tells the pattern's thread it changed
  std::condition_variable cv_;
  proton::work_queue* work_queue_ = nullptr;  // the connection's, once it is open
  int links_open_ = 0;
  std::uint64_t sent_ = 0, settled_ = 0;
  std::deque<proton::message> inbox_;
  std::string failure_;  // non-empty: the connection is gone (io)
  bool closing_ = false;
};

}  // namespace ipclab::broker
