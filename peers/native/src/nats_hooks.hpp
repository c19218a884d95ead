// Where the core peer hands NATS (PROTOCOL.md 4.11: nats) over. Its row is in the table
// (mechanisms.cpp) like every other mechanism's; its code and nats.c are linked only into the
// ipclab-peer executable (nats/), which installs these hooks in main(). Without them (a build
// without libnats) the row is not implemented: `capabilities` leaves it out and a client or
// server asked for it answers unsupported.
#pragma once

#include <string>

#include "options.hpp"
#include "result.hpp"

namespace ipclab {

struct NatsHooks {
  // Connects, runs the pattern through the server's subjects; throws PeerError.
  void (*drive)(const DriveOptions&, Recorder&) = nullptr;
  // Connects, subscribes, announces READY and serves until the lifecycle ends the process.
  void (*serve)(const ServeOptions&) = nullptr;
  // The library and its version, for `capabilities` ("nats.c 3.4.1").
  std::string (*library)() = nullptr;
};

void install_nats_hooks(const NatsHooks& hooks) noexcept;
const NatsHooks& nats_hooks() noexcept;

}  // namespace ipclab
