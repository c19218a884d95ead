#include "amqp_session.hpp"

#include <unistd.h>

#include <proton/binary.hpp>
#include <proton/delivery.hpp>
#include <proton/error_condition.hpp>
#include <proton/message_id.hpp>
#include <proton/tracker.hpp>
#include <proton/transport.hpp>
#include <proton/work_queue.hpp>

#include <chrono>
#include <cstring>

#include "error.hpp"
#include "frame.hpp"
#include "transport/timeout.hpp"

namespace ipclab::broker {

proton::message frame_message(const std::uint8_t* p, std::size_t n, bool durable) {
  proton::message m;
  m.body(proton::binary(p, p + n));
  m.inferred(true);  // a binary body as a data section, not an amqp-value holding binary
  m.durable(durable);
  return m;
}

bool message_bytes(const proton::message& m, proton::binary& out) {
  if (m.body().type() != proton::BINARY) return false;
  proton::get(m.body(), out);  // a copy: Proton hands a value's binary out only as one
  return true;
}

std::string describe(const proton::error_condition& e) {
  return e ? e.what() : std::string("the connection closed");
}

namespace {

std::chrono::steady_clock::time_point at(std::int64_t monotonic_ns) {
  // steady_clock is CLOCK_MONOTONIC on Linux, the clock of the patterns' deadlines.
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(monotonic_ns));
}

}  // namespace

AmqpLink::AmqpLink(const AmqpEndpoint& endpoint, bool durable, std::int64_t io_timeout_ns)
    : endpoint_(endpoint),
      reply_queue_("ipclab." + std::to_string(::getpid()) + ".replies"),
      durable_(durable),
      io_timeout_ns_(io_timeout_ns),
      container_(*this) {
  thread_ = std::thread([this] {
    try {
      container_.run();
    } catch (const std::exception& e) {
      fail(e.what());
    }
    fail("the connection closed");  // run() returns only once it is gone
  });
  std::unique_lock lock(mutex_);
  const bool open = cv_.wait_until(lock, at(monotonic_ns() + io_timeout_ns_), [this] {
    return links_open_ == 2 || !failure_.empty();
  });
  if (!failure_.empty() || !open) {
    const std::string why = failure_.empty() ? "no answer from the broker" : failure_;
    lock.unlock();
    stop();  // the thread is running: end it before the constructor throws
    throw PeerError(ErrorKind::io, "cannot open queues on " + endpoint_.url + ": " + why);
  }
}

AmqpLink::~AmqpLink() { stop(); }

void AmqpLink::stop() noexcept {
  if (!thread_.joinable()) return;
  proton::work_queue* queue = nullptr;
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    queue = work_queue_;
  }
  // A clean close where the connection stands, else just stop the container.
  if (queue == nullptr || !queue->add([this] { connection_.close(); })) container_.stop();
  thread_.join();
}

void AmqpLink::fail(const std::string& why) {
  std::lock_guard lock(mutex_);
  if (failure_.empty()) failure_ = why;
  cv_.notify_all();
}

// ---- the pattern's thread ---------------------------------------------------------------------

void AmqpLink::hand_over(proton::message message) {
  const std::int64_t deadline = monotonic_ns() + io_timeout_ns_;
  std::unique_lock lock(mutex_);
  const std::uint64_t mine = ++sent_;
  proton::work_queue* const queue = work_queue_;
  lock.unlock();
  queue->add([this, m = std::move(message)] { sender_.send(m); });
  lock.lock();
  if (!cv_.wait_until(lock, at(deadline),
                      [&] { return settled_ >= mine || !failure_.empty(); }))
    throw PeerError(ErrorKind::timeout, "the broker did not settle a message within --io-timeout");
  if (!failure_.empty())
    throw PeerError(ErrorKind::io, "sending to " + endpoint_.queue + ": " + failure_);
}

void AmqpLink::send(const std::uint8_t* p, std::size_t n) {
  proton::message m = frame_message(p, n, durable_);
  m.reply_to(reply_queue_);
  m.correlation_id(proton::message_id(std::uint64_t{load_le64(p + kOffSequence)}));
  hand_over(std::move(m));
}

void AmqpLink::send_message(const std::uint8_t* p, std::size_t n, std::uint64_t) {
  hand_over(frame_message(p, n, durable_));
}

std::int64_t AmqpLink::receive_deadline() const {
  const std::int64_t armed = g_receive_deadline_ns.load(std::memory_order_relaxed);
  return armed != 0 ? armed : monotonic_ns() + io_timeout_ns_;
}

std::size_t AmqpLink::receive(std::uint8_t* buf, std::size_t capacity, std::size_t) {
  std::unique_lock lock(mutex_);
  if (!cv_.wait_until(lock, at(receive_deadline()),
                      [this] { return !inbox_.empty() || !failure_.empty(); }))
    throw_timeout();
  if (inbox_.empty())
    throw PeerError(ErrorKind::io, "receiving from " + reply_queue_ + ": " + failure_);
  const proton::message m = std::move(inbox_.front());
  inbox_.pop_front();
  lock.unlock();
  proton::binary bytes;
  if (!message_bytes(m, bytes))
    throw PeerError(ErrorKind::protocol, "a reply whose body is not one data section");
  const std::size_t n = bytes.size();
  if (n != 0) std::memcpy(buf, bytes.data(), n < capacity ? n : capacity);
  return n;
}

// ---- the container's thread -------------------------------------------------------------------

void AmqpLink::on_container_start(proton::container& c) {
  connection_ = c.connect(endpoint_.url);
  sender_ = connection_.open_sender(endpoint_.queue);
  connection_.open_receiver(reply_queue_);
}

void AmqpLink::on_connection_open(proton::connection& c) {
  std::lock_guard lock(mutex_);
  work_queue_ = &c.work_queue();
}

void AmqpLink::on_sender_open(proton::sender&) {
  std::lock_guard lock(mutex_);
  ++links_open_;
  cv_.notify_all();
}

void AmqpLink::on_receiver_open(proton::receiver&) {
  std::lock_guard lock(mutex_);
  ++links_open_;
  cv_.notify_all();
}

void AmqpLink::on_message(proton::delivery&, proton::message& m) {
  std::lock_guard lock(mutex_);
  inbox_.push_back(std::move(m));
  cv_.notify_all();
}  // accepted on return (auto-accept)

void AmqpLink::on_tracker_accept(proton::tracker&) {
  std::lock_guard lock(mutex_);
  ++settled_;
  cv_.notify_all();
}

void AmqpLink::on_tracker_reject(proton::tracker&) {
  fail("the broker rejected a message");
}

void AmqpLink::on_tracker_release(proton::tracker&) {
  fail("the broker released a message instead of accepting it");
}

void AmqpLink::on_transport_error(proton::transport& t) { fail(describe(t.error())); }

void AmqpLink::on_connection_error(proton::connection& c) { fail(describe(c.error())); }

void AmqpLink::on_transport_close(proton::transport&) {
  std::lock_guard lock(mutex_);
  if (!closing_ && failure_.empty()) failure_ = "the broker closed the connection";
  cv_.notify_all();
}

}  // namespace ipclab::broker
