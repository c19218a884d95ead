// The framework-neutral halves of the RPC mechanisms (PROTOCOL.md section 10): the client loop
// every framework's session plugs into, and the service logic every framework's server calls.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "error.hpp"
#include "options.hpp"
#include "structs.hpp"
#include "result.hpp"

namespace ipclab::rpc {

// MAX_PAYLOAD plus room for the framework's own envelope; every framework's limit is raised to
// at least this (10.1 "Sizes").
inline constexpr std::size_t kMessageLimit = 256u << 20;

// One connected client of one framework. Everything outside call()/echo() happens outside the
// timed region.
class Session {
 public:
  virtual ~Session() = default;
  // bytes: builds the request once and returns its payload buffer (request_size bytes, kept
  // across calls) for the caller to fill and stamp in place.
  virtual std::uint8_t* prepare_call(std::uint32_t request_size, std::uint32_t wanted) = 0;
  // Called once the caller has filled the prepared buffer with the request's base.
  virtual void request_filled() {}
  virtual void call(std::uint64_t seq) = 0;  // timed: one stub call
  virtual std::pair<const std::uint8_t*, std::size_t> response() = 0;
  // --void (10.1): prepares put's request as prepare_call does (the buffer to fill and stamp);
  // put(seq) is one stub call of put(seq, request), timed.
  virtual std::uint8_t* prepare_put(std::uint32_t request_size) {
    return prepare_call(request_size, 0);
  }
  virtual void put(std::uint64_t seq) = 0;
  // --void, structured: putSmall / putMedium / putLarge of the record prepare_echo built
  // (stamped by stamp_echo), timed.
  virtual void put_record() = 0;
  // structured: builds the framework's record; stamp_echo sets n1 before each call. Called
  // again with the next record of the same kind (--records per-call, before each call), it
  // converts that one into the same message (reusing the framework's storage where it can).
  virtual void prepare_echo(PayloadKind kind, const Record& record) = 0;
  virtual void stamp_echo(std::int32_t n1) = 0;
  virtual void echo() = 0;  // timed: one stub call
  virtual Record echoed() = 0;
  virtual std::uint64_t finish() = 0;
};

// The service of 10.1, shared by all frameworks' servers; safe to call from several threads.
class Service {
 public:
  explicit Service(const ServeOptions& o)
      : seed_(o.seed), flip_(o.fault == Fault::flip_response_byte) {}
  // Writes payload(seed, 2, seq, wanted) (flipped under the fault) to out and checks request.
  void call(std::uint64_t seq, std::uint32_t wanted, const std::uint8_t* request,
            std::size_t length, std::uint8_t* out);
  // put (--void): checks request as call does; nothing to answer.
  void put(std::uint64_t seq, const std::uint8_t* request, std::size_t length) {
    call(seq, 0, request, length, nullptr);
  }
  // callString: call with text (10.1); out has room for wanted characters.
  void call_string(std::uint64_t seq, std::uint32_t wanted, const char* request,
                   std::size_t length, char* out);
  // The echo's fault: the low bit of n2.
  std::int32_t echo_n2(std::int32_t n2) const noexcept { return flip_ ? (n2 ^ 1) : n2; }
  std::uint64_t finish() noexcept { return corrupted_.exchange(0); }

 private:
  const std::uint8_t* base(std::vector<std::uint8_t>& cache, std::int64_t& cached_n, int stream,
                           std::size_t n);
  std::uint64_t seed_;
  bool flip_;
  std::atomic<std::uint64_t> corrupted_{0};
  std::mutex mutex_;  // guards the caches (one client, but a threaded server)
  std::vector<std::uint8_t> response_base_, request_base_;
  std::int64_t response_n_ = -1, request_n_ = -1;
};

// Per framework (one translation unit each).
std::unique_ptr<Session> open_grpc(const DriveOptions& o);
[[noreturn]] void serve_grpc(const ServeOptions& o, Service& service);
// Pattern stream over grpc (11.3): connects, streams, checks; throws PeerError.
void stream_grpc(const DriveOptions& o, Recorder& recorder);
std::unique_ptr<Session> open_thrift(const DriveOptions& o, bool compact);
[[noreturn]] void serve_thrift(const ServeOptions& o, Service& service, bool compact);
std::unique_ptr<Session> open_rest(const DriveOptions& o);
[[noreturn]] void serve_rest(const ServeOptions& o, Service& service);
std::unique_ptr<Session> open_ice(const DriveOptions& o);
[[noreturn]] void serve_ice(const ServeOptions& o, Service& service);
std::unique_ptr<Session> open_corba(const DriveOptions& o);
[[noreturn]] void serve_corba(const ServeOptions& o, Service& service);
std::unique_ptr<Session> open_soap(const DriveOptions& o);
[[noreturn]] void serve_soap(const ServeOptions& o, Service& service);

// load (11.5.4): the schedule over C sessions that `open` makes, a thread each (rpc/load.cpp).
void drive_load(std::unique_ptr<Session> (*open)(const DriveOptions&), const DriveOptions& o,
                Recorder& recorder);
// What a load server adds to READY (its `server_model`, 11.5.4); empty for another server.
std::string ready_extra(const ServeOptions& o);

// --io-timeout in whole milliseconds (rounded up, at most INT32_MAX), as the frameworks take it.
int timeout_ms(const DriveOptions& o) noexcept;

// Blocks the calling thread for good; the lifecycle (signal, stdin EOF) ends the process.
[[noreturn]] void wait_forever();

// The hooks main() installs.
void install();

}  // namespace ipclab::rpc
