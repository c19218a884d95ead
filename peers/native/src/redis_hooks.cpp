#include "redis_hooks.hpp"

namespace ipclab {

namespace {
RedisHooks g_hooks;
}

void install_redis_hooks(const RedisHooks& hooks) noexcept { g_hooks = hooks; }
const RedisHooks& redis_hooks() noexcept { return g_hooks; }

}  // namespace ipclab
