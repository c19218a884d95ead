#include "rpc_hooks.hpp"

namespace ipclab {

namespace {
RpcHooks g_hooks;
}

void install_rpc_hooks(const RpcHooks& hooks) noexcept { g_hooks = hooks; }
const RpcHooks& rpc_hooks() noexcept { return g_hooks; }

}  // namespace ipclab
