// NATS for the nats mechanism (PROTOCOL.md 4.11), over nats.c: one connection that never
// reconnects and sends each message at once, synchronous subscriptions whose pending limits are
// lifted (the stream's window bounds what waits), messages owned until they go out of scope,
// and nats.c's statuses as PeerErrors. Built only where libnats is found (cmake/message_libraries.cmake);
// main() then installs the hooks (nats_hooks.hpp) that the table's row goes through.
#pragma once

#include <nats/nats.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "credit_window.hpp"  // stream_window, credit_every (4.11 as 4.10)
#include "endpoint.hpp"

namespace ipclab::nats {

void install();  // nats_client.cpp: the hooks of nats_hooks.hpp

// "nats.c 3.4.1": the running library's nats_GetVersion() (capabilities' `library`).
std::string library_version();

// The server's version from the INFO line it sends every new connection ("2.9.10"), read over
// a connection of its own: nats.c keeps the INFO to itself.
std::string server_version(const InetEndpoint& server);

// NAME.requests, NAME.credits.
struct Subjects {
  explicit Subjects(const std::string& name)
      : requests(name + ".requests"), credits(name + ".credits") {}
  std::string requests, credits;
};

struct MessageFree {
  void operator()(natsMsg* m) const noexcept { natsMsg_Destroy(m); }
};

// One received message; its bytes stay valid while it lives.
class Message {
 public:
  explicit Message(natsMsg* m) noexcept : m_(m) {}
  const std::uint8_t* data() const noexcept {
    return reinterpret_cast<const std::uint8_t*>(natsMsg_GetData(m_.get()));
  }
  std::size_t size() const noexcept {
    return static_cast<std::size_t>(natsMsg_GetDataLength(m_.get()));
  }
  // The reply subject, or nullptr where the message has none.
  const char* reply() const noexcept {
    const char* r = natsMsg_GetReply(m_.get());
    return r != nullptr && *r != '\0' ? r : nullptr;
  }
  // The server's "no responders" status (header Status 503, no data): a request was published
  // where nobody is subscribed (4.11).
  bool no_responders() const noexcept {
    const char* status = nullptr;
    return size() == 0 && natsMsgHeader_Get(m_.get(), "Status", &status) == NATS_OK &&
           status != nullptr && std::string_view(status) == "503";
  }

 private:
  std::unique_ptr<natsMsg, MessageFree> m_;
};

class Connection {
 public:
  // Connects to endpoint.server within timeout_ns (30 s where 0).
  Connection(const NatsEndpoint& endpoint, std::int64_t timeout_ns);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Publishes n bytes to `subject` (with `reply` as its reply subject unless nullptr).
  void publish(const std::string& subject, const char* reply, const std::uint8_t* p,
               std::size_t n);
  // Waits until the server has everything sent so far (a PING answered).
  void flush(std::int64_t timeout_ms);
  natsConnection* handle() const noexcept { return nc_; }
  const std::string& where() const noexcept { return where_; }

 private:
  natsOptions* opts_ = nullptr;
  natsConnection* nc_ = nullptr;
  std::string where_;
};

class Subscription {
 public:
  // A synchronous subscription to `subject`, or to a new inbox of the library's where `subject`
  // is empty (the client's one reply subject).
  Subscription(Connection& conn, const std::string& subject);
  ~Subscription();
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;

  const std::string& subject() const noexcept { return subject_; }
  // The next message within timeout_ms (a timeout error past it), or, where timeout_ms is 0,
  // however long it takes.
  Message next(std::int64_t timeout_ms);
  // Drops every message that has come and not been taken.
  void discard_pending();

 private:
  natsSubscription* sub_ = nullptr;
  std::string subject_;
};

// A status other than NATS_OK as an io error naming `what` and nats.c's own words.
[[noreturn]] void fail(natsStatus s, const std::string& what);
inline void check(natsStatus s, const std::string& what) {
  if (s != NATS_OK) fail(s, what);
}

}  // namespace ipclab::nats
