// Where the core peer hands the RPC mechanisms of PROTOCOL.md section 10 over. Their rows are in
// the table (mechanisms.cpp) like every other mechanism's; the RPC code (and its framework
// libraries) is linked only into the ipclab-peer executable, which installs these hooks in
// main(). Without them, or for a framework the build left out, an RPC row is not implemented.
#pragma once

#include <span>
#include <string_view>

#include "options.hpp"
#include "result.hpp"

namespace ipclab {

struct RpcHooks {
  // Runs the warm-up, measured calls and finish; throws PeerError.
  void (*drive)(const DriveOptions&, Recorder&) = nullptr;
  // Serves until the lifecycle ends the process; throws PeerError.
  void (*serve)(const ServeOptions&) = nullptr;
  // Whether this build carries the framework of the mechanism with this name.
  bool (*supports)(std::string_view mechanism) = nullptr;
  // load (11.5.4): the server configurations of the framework's load server; empty: no load.
  std::span<const std::string_view> (*load_models)(std::string_view mechanism) = nullptr;
};

void install_rpc_hooks(const RpcHooks& hooks) noexcept;
const RpcHooks& rpc_hooks() noexcept;

}  // namespace ipclab
