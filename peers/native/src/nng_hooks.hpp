// Where the core peer hands NNG (PROTOCOL.md 4.9: nng-tcp, nng-ipc) over. Their rows are in the
// table (mechanisms.cpp) like every other mechanism's; their code and libnng are linked only into
// the ipclab-peer executable (nng/), which installs these hooks in main(). Without them (a build
// without libnng) the rows are not implemented: `capabilities` leaves them out and a client or
// server asked for one answers unsupported.
#pragma once

#include <string>

#include "options.hpp"
#include "result.hpp"

namespace ipclab {

struct NngHooks {
  // Dials, runs the pattern over the server's sockets; throws PeerError.
  void (*drive)(const DriveOptions&, Recorder&) = nullptr;
  // Listens, announces READY and serves until the lifecycle ends the process; throws PeerError.
  void (*serve)(const ServeOptions&) = nullptr;
  // The library and its version, for `capabilities` ("nng 1.5.2").
  std::string (*library)() = nullptr;
};

void install_nng_hooks(const NngHooks& hooks) noexcept;
const NngHooks& nng_hooks() noexcept;

}  // namespace ipclab
