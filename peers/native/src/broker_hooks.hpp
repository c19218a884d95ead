// Where the core peer hands the message broker of PROTOCOL.md 4.7 (activemq) over. Its row is
// in the table (mechanisms.cpp) like every other mechanism's; its code and Qpid Proton C++ are
// linked only into the ipclab-peer executable (broker/), which installs these hooks in main().
// Without them (a build without Proton) the row is not implemented.
#pragma once

#include "options.hpp"
#include "result.hpp"

namespace ipclab {

struct BrokerHooks {
  // Connects, runs the pattern over the broker's queues; throws PeerError.
  void (*drive)(const DriveOptions&, Recorder&) = nullptr;
  // Connects, announces READY and serves until the lifecycle ends the process; throws PeerError.
  void (*serve)(const ServeOptions&) = nullptr;
};

void install_broker_hooks(const BrokerHooks& hooks) noexcept;
const BrokerHooks& broker_hooks() noexcept;

}  // namespace ipclab
