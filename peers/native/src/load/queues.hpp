// load over a message queue (PROTOCOL.md 11.5.5): every client shares one request queue, each
// REQUEST and END is one message whose flags carry its connection's reply address (0x8000 + c),
// and the answers come back by connection. The client is load/threaded.hpp's schedule over one
// queue connection per client (queue_client.cpp); the server is `iterative` or `thread-pool`
// workers taking the next request off the shared queue (queue_server.cpp). The queues themselves
// are the transports' (transport/message.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "options.hpp"
#include "result.hpp"
#include "transport/message.hpp"

namespace ipclab::load {

// A message queue's load; a row of mechanisms.cpp points at one.
struct Queue {
  // Connection c's channel (sends to the request queue, receives its reply address).
  std::unique_ptr<MessageChannel> (*open)(const DriveOptions& o, std::uint32_t c);
  // The server's queues.
  std::unique_ptr<LoadQueues> (*create)();
};
extern const Queue kSysvMqLoad;
extern const Queue kPosixMqLoad;

// The server models of a queue's load server (capabilities' load_models).
std::span<const std::string_view> queue_models() noexcept;

// drive --pattern load: the schedule over --clients queue connections (queue_client.cpp).
void drive_queue(const Queue& queue, const DriveOptions& o, Recorder& recorder);

// serve --pattern load: creates the queues, announces READY and serves until the lifecycle ends
// the process; returns an exit code only for what is unsupported (queue_server.cpp).
int serve_queue(const Queue& queue, const ServeOptions& o);

}  // namespace ipclab::load
