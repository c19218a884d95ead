// Where the core peer hands iceoryx2 (PROTOCOL.md 4.12: iceoryx2, iceoryx2-spin) over. Its rows
// are in the table (mechanisms.cpp) like every other mechanism's; its code and ipclab's C binding
// of the iceoryx2 crate (iceoryx2/, a Rust static library) are linked only into the ipclab-peer
// executable (iceoryx2/), which installs these hooks in main(). Without them (a build without
// cargo) the rows are not implemented: `capabilities` leaves them out and a client or server
// asked for one answers unsupported.
#pragma once

#include <string>

#include "options.hpp"
#include "result.hpp"

namespace ipclab {

struct Iceoryx2Hooks {
  // Makes the client's node and ports, runs the pattern over the server's services; throws
  // PeerError.
  void (*drive)(const DriveOptions&, Recorder&) = nullptr;
  // Makes the node, the services and the ports, announces READY and serves until the lifecycle
  // ends the process.
  void (*serve)(const ServeOptions&) = nullptr;
  // The library and its version, for `capabilities` ("iceoryx2 0.10.0").
  std::string (*library)() = nullptr;
};

// The one set of hooks, empty until main() installs iceoryx2/'s (an inline function's static: one
// object for the core library and the executable alike).
inline Iceoryx2Hooks& iceoryx2_hook_slot() noexcept {
  static Iceoryx2Hooks hooks;
  return hooks;
}
inline void install_iceoryx2_hooks(const Iceoryx2Hooks& hooks) noexcept {
  iceoryx2_hook_slot() = hooks;
}
inline const Iceoryx2Hooks& iceoryx2_hooks() noexcept { return iceoryx2_hook_slot(); }

}  // namespace ipclab
