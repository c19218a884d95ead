// Where the core peer hands ZeroMQ (PROTOCOL.md 4.8: zmq-tcp, zmq-ipc) over. Their rows are in
// the table (mechanisms.cpp) like every other mechanism's; their code and libzmq are linked only
// into the ipclab-peer executable (zmq/), which installs these hooks in main(). Without them (a
// build without libzmq) the rows are not implemented: `capabilities` leaves them out and a
// client or server asked for one answers unsupported.
#pragma once

#include "options.hpp"
#include "result.hpp"

namespace ipclab {

struct ZmqHooks {
  // Connects, runs the pattern over the server's sockets; throws PeerError.
  void (*drive)(const DriveOptions&, Recorder&) = nullptr;
  // Binds, announces READY and serves until the lifecycle ends the process; throws PeerError.
  void (*serve)(const ServeOptions&) = nullptr;
  // The library and its version, for `capabilities` ("libzmq 4.3.4").
  std::string (*library)() = nullptr;
};

void install_zmq_hooks(const ZmqHooks& hooks) noexcept;
const ZmqHooks& zmq_hooks() noexcept;

}  // namespace ipclab
