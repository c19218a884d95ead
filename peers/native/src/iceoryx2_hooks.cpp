#include "iceoryx2_hooks.hpp"

namespace ipclab {

namespace {
Iceoryx2Hooks g_hooks;  // empty until main() installs iceoryx2/'s
}

void install_iceoryx2_hooks(const Iceoryx2Hooks& hooks) noexcept { g_hooks = hooks; }
const Iceoryx2Hooks& iceoryx2_hooks() noexcept { return g_hooks; }

}  // namespace ipclab
