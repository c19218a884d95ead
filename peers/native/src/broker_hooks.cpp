#include "broker_hooks.hpp"

namespace ipclab {

namespace {
BrokerHooks g_hooks;
}

void install_broker_hooks(const BrokerHooks& hooks) noexcept { g_hooks = hooks; }
const BrokerHooks& broker_hooks() noexcept { return g_hooks; }

}  // namespace ipclab
