// Where the core peer hands the RPC mechanisms of PROTOCOL.md section 10 over. The RPC code
// (and its framework libraries) is linked only into the ipclab-peer executable, which installs
// these hooks in main(); without them an RPC mechanism is unsupported.
#pragma once

#include "cli.hpp"
#include "result.hpp"

namespace ipclab {

struct RpcHooks {
  // Runs the warm-up, measured calls and finish; throws PeerError.
  void (*drive)(const DriveOptions&, SamplesWriter&) = nullptr;
  // Serves until the lifecycle ends the process; throws PeerError.
  void (*serve)(const ServeOptions&) = nullptr;
  // Whether this build implements the mechanism at all.
  bool (*supports)(Mechanism) = nullptr;
};

void install_rpc_hooks(const RpcHooks& hooks) noexcept;
const RpcHooks& rpc_hooks() noexcept;

}  // namespace ipclab
