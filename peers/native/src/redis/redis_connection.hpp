// Redis for the redis-tcp and redis-uds mechanisms (PROTOCOL.md 4.10), over hiredis's blocking
// API: one connection with pipelined commands (appended, written in one call, their replies read
// in order), hiredis's errors and Redis's error replies as PeerErrors, and the stream's flow
// control window. Built only where hiredis is found (cmake/message_libraries.cmake); main() then installs the
// hooks (redis_hooks.hpp) that the table's rows go through.
#pragma once

#include <hiredis/hiredis.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "credit_window.hpp"  // stream_window, credit_every (4.10)
#include "endpoint.hpp"

namespace ipclab::redis {

void install();  // redis_client.cpp: the hooks of redis_hooks.hpp

// "hiredis 0.14.1": the library this peer is built with (capabilities' `library`).
std::string library_version();

// NAME:requests, NAME:replies, NAME:credits.
struct Keys {
  explicit Keys(const std::string& name)
      : requests(name + ":requests"), replies(name + ":replies"), credits(name + ":credits") {}
  std::string requests, replies, credits;
};

struct ReplyFree {
  void operator()(redisReply* r) const noexcept { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, ReplyFree>;

class Connection {
 public:
  // Connects to the server; timeout_ns > 0 bounds every read and write of the socket.
  Connection(const RedisEndpoint& endpoint, std::int64_t timeout_ns);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Appends one command (binary-safe arguments); `wanted`: its reply is returned by a next(),
  // else it is read and checked (not an error) before the next wanted one.
  void append(std::initializer_list<std::string_view> args, bool wanted);
  // Writes everything appended, in as few calls as the kernel takes.
  void flush();
  // The reply of the next wanted command, after the unwanted ones before it; an error reply is
  // an io error naming the server's message.
  Reply next();

 private:
  Reply read_one();
  [[noreturn]] void fail(const std::string& what);

  redisContext* c_;
  std::string where_;
  std::uint64_t unwanted_ = 0;  // replies to read and check before the next wanted one
};

}  // namespace ipclab::redis
