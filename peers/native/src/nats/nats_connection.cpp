#include "nats_connection.hpp"

#include <sys/socket.h>
#include <sys/time.h>

#include <string_view>

#include "error.hpp"
#include "transport/transport.hpp"

namespace ipclab::nats {

namespace {

constexpr std::int64_t kForeverMs = 3'600'000;  // a responder's wait, renewed while nothing comes

int to_ms(std::int64_t ns) {
  const std::int64_t ms = (ns + 999'999) / 1'000'000;
  return ms > 2'000'000'000 ? 2'000'000'000 : static_cast<int>(ms);
}

}  // namespace

[[noreturn]] void fail(natsStatus s, const std::string& what) {
  std::string why = natsStatus_GetText(s);
  const char* detail = nats_GetLastError(nullptr);
  if (detail != nullptr && *detail != '\0' && why.find(detail) == std::string::npos)
    why += std::string(" (") + detail + ")";
  throw PeerError(s == NATS_TIMEOUT ? ErrorKind::timeout : ErrorKind::io, what + ": " + why);
}

std::string library_version() { return std::string("nats.c ") + nats_GetVersion(); }

std::string server_version(const InetEndpoint& server) {
  Stream s = connect_tcp(server, true);
  // The INFO comes at once; a server that sends nothing is not waited for long.
  const timeval tv{5, 0};
  ::setsockopt(s.read_fd(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string line;
  std::uint8_t buf[4096];
  while (line.find("\r\n") == std::string::npos && line.size() < 65536) {
    const std::size_t n = s.read_some(buf, sizeof buf);
    if (n == 0) break;
    line.append(reinterpret_cast<const char*>(buf), n);
  }
  const std::string_view key = "\"version\":\"";
  const auto at = line.rfind("INFO ", 0) == 0 ? line.find(key) : std::string::npos;
  if (at == std::string::npos) return "unknown";
  const auto end = line.find('"', at + key.size());
  return end == std::string::npos ? "unknown" : line.substr(at + key.size(), end - at - key.size());
}

Connection::Connection(const NatsEndpoint& e, std::int64_t timeout_ns) : where_(e.server) {
  const std::string what = "connect to NATS at " + where_;
  check(natsOptions_Create(&opts_), what);
  check(natsOptions_SetURL(opts_, e.server.c_str()), what);
  check(natsOptions_SetTimeout(opts_, to_ms(timeout_ns > 0 ? timeout_ns : 30'000'000'000)), what);
  // A lost server ends the exchange (an io error), never a reconnection that would hide it.
  check(natsOptions_SetAllowReconnect(opts_, false), what);
  // Every publish goes out in its own write, as a socket's would, not held for the flusher.
  check(natsOptions_SetSendAsap(opts_, true), what);
  const natsStatus s = natsConnection_Connect(&nc_, opts_);
  if (s != NATS_OK) {
    natsOptions_Destroy(opts_);
    fail(s, what);
  }
}

Connection::~Connection() {
  natsConnection_Destroy(nc_);
  natsOptions_Destroy(opts_);
}

void Connection::publish(const std::string& subject, const char* reply, const std::uint8_t* p,
                         std::size_t n) {
  const natsStatus s =
      reply != nullptr
          ? natsConnection_PublishRequest(nc_, subject.c_str(), reply, p, static_cast<int>(n))
          : natsConnection_Publish(nc_, subject.c_str(), p, static_cast<int>(n));
  // Over the server's max_payload the library refuses before anything is sent (4.11).
  if (s != NATS_OK) fail(s, "publish " + std::to_string(n) + " bytes to " + subject);
}

void Connection::flush(std::int64_t timeout_ms) {
  check(natsConnection_FlushTimeout(nc_, timeout_ms), "flush to NATS at " + where_);
}

Subscription::Subscription(Connection& conn, const std::string& subject) : subject_(subject) {
  if (subject_.empty()) {
    natsInbox* inbox = nullptr;
    check(natsInbox_Create(&inbox), "a new inbox");
    subject_ = inbox;
    natsInbox_Destroy(inbox);
  }
  check(natsConnection_SubscribeSync(&sub_, conn.handle(), subject_.c_str()),
        "subscribe to " + subject_);
  // Negative: no limit. Past the default 64 MiB the library would drop messages (4.11).
  check(natsSubscription_SetPendingLimits(sub_, -1, -1), "lifting " + subject_ + "'s limits");
}

Subscription::~Subscription() { natsSubscription_Destroy(sub_); }

Message Subscription::next(std::int64_t timeout_ms) {
  for (;;) {
    natsMsg* m = nullptr;
    const natsStatus s =
        natsSubscription_NextMsg(&m, sub_, timeout_ms > 0 ? timeout_ms : kForeverMs);
    if (s == NATS_OK) return Message(m);
    if (s == NATS_TIMEOUT && timeout_ms <= 0) continue;
    if (s == NATS_TIMEOUT)
      throw PeerError(ErrorKind::timeout, "nothing on " + subject_ + " within --io-timeout");
    if (s == NATS_SLOW_CONSUMER) fail(s, "the library dropped messages on " + subject_);
    if (s == NATS_NO_RESPONDERS)  // nats.c turns the server's 503 into this status (4.11)
      throw PeerError(ErrorKind::io, "no responder took the request (the server's 503 on " +
                                         subject_ + ")");
    fail(s, "a message on " + subject_);
  }
}

void Subscription::discard_pending() {
  int count = 0, bytes = 0;
  check(natsSubscription_GetPending(sub_, &count, &bytes), "the messages on " + subject_);
  for (; count > 0; --count) {
    natsMsg* m = nullptr;
    if (natsSubscription_NextMsg(&m, sub_, 1) != NATS_OK) return;
    natsMsg_Destroy(m);
  }
}

}  // namespace ipclab::nats
