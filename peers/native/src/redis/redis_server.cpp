// The redis-tcp and redis-uds responder (PROTOCOL.md 4.10): one connection to the Redis server;
// each frame taken with BLPOP NAME:requests 0 and answered as a section 2 server would
// (WholeFrameServer, server.hpp) with RPUSH NAME:replies, written in one call with the next
// take; a stream's messages taken in batches (LPOP with a count, BLPOP when the list is empty)
// and a credit pushed per K(S) of them. The lifecycle (lifecycle.cpp) ends the process on a
// signal or stdin's end.
#include <string>
#include <string_view>

#include "error.hpp"
#include "frame.hpp"
#include "options.hpp"
#include "redis_connection.hpp"
#include "result.hpp"
#include "server.hpp"

namespace ipclab::redis {

namespace {

// INFO server's redis_version ("7.0.15"), or "unknown".
std::string server_version(Connection& conn) {
  conn.append({"INFO", "server"}, true);
  conn.flush();
  const Reply r = conn.next();
  if (r->type != REDIS_REPLY_STRING && r->type != REDIS_REPLY_STATUS) return "unknown";
  const std::string_view info(r->str, r->len);
  const std::string_view key = "redis_version:";
  const auto at = info.find(key);
  if (at == std::string_view::npos) return "unknown";
  const auto end = info.find_first_of("\r\n", at);
  return std::string(info.substr(at + key.size(), end - at - key.size()));
}

class Responder {
 public:
  Responder(const ServeOptions& o, Connection& conn, const Keys& keys)
      : conn_(conn), keys_(keys), frames_(o) {}

  // Each turn reads the reply of the take appended last, answers its elements, and appends the
  // next take in the same write as the answers; the request's payload is checked (done()) once
  // that write went out, while its reply still holds it.
  [[noreturn]] void run() {
    bool blocking = true;  // the next take: BLPOP (one element, waited for) or LPOP (a batch)
    append_take(blocking);
    conn_.flush();
    for (;;) {
      const Reply r = conn_.next();
      blocking = false;
      if (r->type == REDIS_REPLY_NIL) {
        blocking = true;  // LPOP found the list empty: wait for the next element
      } else if (r->type == REDIS_REPLY_ARRAY && is_blpop_) {
        if (r->elements != 2 || r->element[1]->type != REDIS_REPLY_STRING)
          throw PeerError(ErrorKind::io, "BLPOP answered no [key, element] pair");
        answer(r->element[1]);
      } else if (r->type == REDIS_REPLY_ARRAY) {
        for (std::size_t i = 0; i < r->elements; ++i) {
          if (r->element[i]->type != REDIS_REPLY_STRING)
            throw PeerError(ErrorKind::io, "LPOP answered an element that is not a string");
          // A rejected message gave up the count: the rest are frames, answered in turn, each
          // answer out before the next is made (the Responder's buffers are reused).
          if (answered_) settle();
          answer(r->element[i]);
        }
      } else {
        throw PeerError(ErrorKind::io, "a take from " + keys_.requests + " answered no list");
      }
      append_take(blocking || frames_.pending() == 0);
      settle();
    }
  }

 private:
  void append_take(bool blocking) {
    is_blpop_ = blocking;
    if (blocking) {
      conn_.append({"BLPOP", keys_.requests, "0"}, true);
      return;
    }
    const std::uint64_t due = frames_.pending();
    const std::uint64_t window = stream_window(frames_.message_size());
    conn_.append({"LPOP", keys_.requests, std::to_string(due < window ? due : window)}, true);
  }

  // Writes what is appended; an answer among it has gone out: its request's payload is
  // checked now (PROTOCOL.md 3).
  void settle() {
    conn_.flush();
    if (answered_) frames_.done();
    answered_ = false;
  }

  // One element taken as a frame (or, while messages are due, as a message).
  void answer(const redisReply* v) {
    const bool message = frames_.pending() != 0;
    const std::uint8_t kind = v->len >= kHeaderSize ? static_cast<std::uint8_t>(v->str[kOffKind]) : 0;
    const ipclab::Responder::Answer a =
        frames_.take(reinterpret_cast<const std::uint8_t*>(v->str), v->len);
    if (message) {
      if (++taken_ % every_ == 0) conn_.append({"RPUSH", keys_.credits, ""}, false);
      return;
    }
    if (a.size == 0) {  // rejected: the empty answer (4.10)
      conn_.append({"RPUSH", keys_.replies, ""}, false);
      return;
    }
    const bool mark = kind == static_cast<std::uint8_t>(FrameKind::mark);
    if (mark) {  // a stream starts: its credits count from here
      taken_ = 0;
      every_ = credit_every(stream_window(frames_.message_size()));
    }
    if (mark || kind == static_cast<std::uint8_t>(FrameKind::end))
      conn_.append({"DEL", keys_.credits}, false);
    conn_.append({"RPUSH", keys_.replies,
                  std::string_view(reinterpret_cast<const char*>(a.data), a.size)},
                 false);
    answered_ = true;
  }

  Connection& conn_;
  const Keys& keys_;
  WholeFrameServer frames_;
  std::uint64_t taken_ = 0, every_ = 1;  // messages taken since the MARK; a credit per every_
  bool answered_ = false;                // an answer appended, its request not yet checked
  bool is_blpop_ = true;                 // the take appended last
};

}  // namespace

void serve(const ServeOptions& o) {
  const RedisEndpoint& endpoint = endpoint_as<RedisEndpoint>(o.endpoint);
  Connection conn(endpoint, 0);
  const Keys keys(endpoint.name);
  // What an earlier run may have left on a shared server goes first.
  conn.append({"DEL", keys.requests, keys.replies, keys.credits}, false);
  const std::string version = server_version(conn);
  announce_ready(endpoint.text, o.mechanism_name, ", \"broker\": " + json_string("Redis " + version));
  Responder(o, conn, keys).run();
}

}  // namespace ipclab::redis
