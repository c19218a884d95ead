// The redis-tcp and redis-uds client (PROTOCOL.md 4.10): a link of links.hpp over one Redis
// connection, so rr and stream (patterns.hpp) run over it unchanged: a frame is RPUSH
// NAME:requests and BLPOP NAME:replies written in one call; a stream message is one RPUSH,
// its reply read later, and, past the window, a BLPOP NAME:credits first. And the hooks main()
// installs.
#include <cstring>
#include <string>
#include <string_view>

#include "error.hpp"
#include "frame.hpp"
#include "options.hpp"
#include "patterns.hpp"
#include "redis_connection.hpp"
#include "redis_hooks.hpp"

namespace ipclab::redis {

void serve(const ServeOptions& o);  // redis_server.cpp

namespace {

// --io-timeout as BLPOP's timeout: seconds, with milliseconds.
std::string blpop_timeout(std::int64_t ns) {
  const std::int64_t ms = (ns + 999'999) / 1'000'000;
  std::string s = std::to_string(ms / 1000) + ".";
  const std::string frac = std::to_string(ms % 1000);
  return s + std::string(3 - frac.size(), '0') + frac;
}

std::string_view bytes(const std::uint8_t* p, std::size_t n) {
  return {reinterpret_cast<const char*>(p), n};
}

class RedisLink {
 public:
  RedisLink(const RedisEndpoint& endpoint, const DriveOptions& o)
      // The socket's own timeout outlasts BLPOP's, whose nil answer is the timeout to report.
      : conn_(endpoint, o.io_timeout_ns + 5'000'000'000),
        keys_(endpoint.name),
        timeout_(blpop_timeout(o.io_timeout_ns)),
        sender_(o.message_size) {}

  // The link interface of links.hpp.
  static std::size_t capacity_for(std::size_t frame) { return frame; }
  void send(const std::uint8_t* p, std::size_t n) {
    conn_.append({"RPUSH", keys_.requests, bytes(p, n)}, false);
    conn_.append({"BLPOP", keys_.replies, timeout_}, true);
    conn_.flush();
  }
  std::size_t receive(std::uint8_t* buf, std::size_t capacity, std::size_t /*expected*/) {
    const Reply r = conn_.next();
    const redisReply* value = popped(r.get(), keys_.replies);
    const std::size_t got = value->len;
    std::memcpy(buf, value->str, got < capacity ? got : capacity);
    // A MARK_ACK opens a stream's window (4.10): messages are counted from it.
    if (got == kHeaderSize && buf[kOffKind] == static_cast<std::uint8_t>(FrameKind::mark_ack))
      sender_.open();
    return got;
  }
  // A stream message (11.1): one RPUSH, after a credit where the window is full.
  void send_message(const std::uint8_t* p, std::size_t n, std::uint64_t /*sequence*/) {
    if (sender_.next_needs_credit()) {
      conn_.append({"BLPOP", keys_.credits, timeout_}, true);
      conn_.flush();
      const Reply r = conn_.next();
      popped(r.get(), keys_.credits);
    }
    conn_.append({"RPUSH", keys_.requests, bytes(p, n)}, false);
    conn_.flush();
  }

 private:
  // BLPOP's element: a nil reply is a timeout, anything but [key, string] a protocol error.
  static const redisReply* popped(const redisReply* r, const std::string& key) {
    if (r->type == REDIS_REPLY_NIL)
      throw PeerError(ErrorKind::timeout, "nothing on " + key + " within --io-timeout");
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
        r->element[1]->type != REDIS_REPLY_STRING)
      throw PeerError(ErrorKind::protocol, "BLPOP " + key + " answered no [key, element] pair");
    return r->element[1];
  }

  Connection conn_;
  const Keys keys_;
  const std::string timeout_;
  CreditedSender sender_;
};

}  // namespace

void install() {
  install_redis_hooks({drive_over<RedisLink, RedisEndpoint>, serve, library_version});
}

}  // namespace ipclab::redis
