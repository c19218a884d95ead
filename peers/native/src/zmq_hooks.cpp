#include "zmq_hooks.hpp"

namespace ipclab {

namespace {
ZmqHooks g_hooks;
}

void install_zmq_hooks(const ZmqHooks& hooks) noexcept { g_hooks = hooks; }
const ZmqHooks& zmq_hooks() noexcept { return g_hooks; }

}  // namespace ipclab
