// Where the core peer hands Redis (PROTOCOL.md 4.10: redis-tcp, redis-uds) over. Their rows are in
// the table (mechanisms.cpp) like every other mechanism's; their code and hiredis are linked only
// into the ipclab-peer executable (redis/), which installs these hooks in main(). Without them (a
// build without hiredis) the rows are not implemented: `capabilities` leaves them out and a
// client or server asked for one answers unsupported.
#pragma once

#include "options.hpp"
#include "result.hpp"

namespace ipclab {

struct RedisHooks {
  // Connects, runs the pattern over the server's lists; throws PeerError.
  void (*drive)(const DriveOptions&, Recorder&) = nullptr;
  // Connects, announces READY and serves until the lifecycle ends the process; throws PeerError.
  void (*serve)(const ServeOptions&) = nullptr;
  // The library and its version, for `capabilities` ("hiredis 0.14.1").
  std::string (*library)() = nullptr;
};

void install_redis_hooks(const RedisHooks& hooks) noexcept;
const RedisHooks& redis_hooks() noexcept;

}  // namespace ipclab
