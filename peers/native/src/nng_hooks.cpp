#include "nng_hooks.hpp"

namespace ipclab {

namespace {
NngHooks g_hooks;
}

void install_nng_hooks(const NngHooks& hooks) noexcept { g_hooks = hooks; }
const NngHooks& nng_hooks() noexcept { return g_hooks; }

}  // namespace ipclab
