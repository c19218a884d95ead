#include "nats_hooks.hpp"

namespace ipclab {

namespace {
NatsHooks g_hooks;  // empty until main() installs nats/'s
}

void install_nats_hooks(const NatsHooks& hooks) noexcept { g_hooks = hooks; }
const NatsHooks& nats_hooks() noexcept { return g_hooks; }

}  // namespace ipclab
