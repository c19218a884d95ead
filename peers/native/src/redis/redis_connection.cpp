#include "redis_connection.hpp"

#include <sys/time.h>

#include <cerrno>
#include <vector>

#include "error.hpp"

namespace ipclab::redis {

std::string library_version() {
  return "hiredis " + std::to_string(HIREDIS_MAJOR) + "." + std::to_string(HIREDIS_MINOR) + "." +
         std::to_string(HIREDIS_PATCH);
}

namespace {

timeval to_timeval(std::int64_t ns) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  tv.tv_usec = static_cast<suseconds_t>((ns % 1'000'000'000) / 1000);
  return tv;
}

}  // namespace

Connection::Connection(const RedisEndpoint& e, std::int64_t timeout_ns)
    : c_(nullptr),
      where_(e.host.empty() ? e.path : e.host + ":" + std::to_string(e.port)) {
  const timeval connect_tv = to_timeval(timeout_ns > 0 ? timeout_ns : 30'000'000'000);
  c_ = e.host.empty() ? redisConnectUnixWithTimeout(e.path.c_str(), connect_tv)
                      : redisConnectWithTimeout(e.host.c_str(), e.port, connect_tv);
  if (c_ == nullptr) throw PeerError(ErrorKind::io, "connect to Redis at " + where_ + ": no memory");
  if (c_->err != 0) {
    const std::string why = c_->errstr;
    redisFree(c_);
    c_ = nullptr;
    throw PeerError(ErrorKind::io, "connect to Redis at " + where_ + ": " + why);
  }
  // Blocking reads and writes: bounded where asked, forever otherwise (a responder's BLPOP 0).
  const timeval tv = to_timeval(timeout_ns);
  if (redisSetTimeout(c_, tv) != REDIS_OK) fail("setting the socket timeout");
}

Connection::~Connection() {
  if (c_ != nullptr) redisFree(c_);
}

void Connection::fail(const std::string& what) {
  const int err = c_->err;
  const int saved = errno;
  const std::string why = c_->errstr;
  if (err == REDIS_ERR_IO && (saved == EAGAIN || saved == EWOULDBLOCK ||
                              why.find("temporarily unavailable") != std::string::npos))
    throw PeerError(ErrorKind::timeout, what + ": nothing from Redis at " + where_ +
                                            " within --io-timeout");
  if (err == REDIS_ERR_EOF)
    throw PeerError(ErrorKind::io, what + ": the Redis server at " + where_ +
                                       " closed the connection");
  throw PeerError(ErrorKind::io, what + ": Redis at " + where_ + ": " + why);
}

void Connection::append(std::initializer_list<std::string_view> args, bool wanted) {
  const char* argv[8];
  std::size_t lens[8];
  int n = 0;
  for (const std::string_view a : args) {
    argv[n] = a.data();
    lens[n] = a.size();
    ++n;
  }
  if (redisAppendCommandArgv(c_, n, argv, lens) != REDIS_OK) fail("a command");
  if (!wanted) ++unwanted_;
}

void Connection::flush() {
  int done = 0;
  while (done == 0)
    if (redisBufferWrite(c_, &done) != REDIS_OK) fail("write");
}

Reply Connection::read_one() {
  void* r = nullptr;
  if (redisGetReply(c_, &r) != REDIS_OK || r == nullptr) fail("read");
  Reply reply(static_cast<redisReply*>(r));
  if (reply->type == REDIS_REPLY_ERROR)
    throw PeerError(ErrorKind::io, "Redis at " + where_ + " answered: " +
                                       std::string(reply->str, reply->len));
  return reply;
}

Reply Connection::next() {
  while (unwanted_ != 0) {
    read_one();
    --unwanted_;
  }
  return read_one();
}

}  // namespace ipclab::redis
