#include "capabilities.hpp"

#include "burst/server_models.hpp"
#include "rpc_hooks.hpp"
#include "burst/sockets.hpp"
#include "load/queues.hpp"
#include "mechanisms.hpp"
#include "result.hpp"
#include "redis_hooks.hpp"
#include "nats_hooks.hpp"
#include "iceoryx2_hooks.hpp"
#include "zmq_hooks.hpp"
#include "nng_hooks.hpp"

namespace ipclab {

namespace {

std::string names_json(const std::vector<std::string_view>& names) {
  std::string j = "[";
  const char* sep = "";
  for (const std::string_view name : names) {
    j += sep + json_string(name);
    sep = ", ";
  }
  return j + "]";
}

}  // namespace

std::string capabilities_json() {
  std::string j = "{\"contract\": " + std::to_string(kContract) +
                  ", \"language\": " + json_string(kLanguage) +
                  ", \"runtime\": " + json_string(runtime_string()) + ", \"mechanisms\": {";
  const char* comma = "";
  for (const Mechanism* m : implemented_mechanisms()) {
    j += comma + json_string(m->name) + ": {\"roles\": [";
    j += m->serve != nullptr ? "\"serve\", \"drive\"" : "\"drive\"";
    j += "], \"patterns\": [";
    const char* sep = "";
    for (const std::string_view p : m->patterns) {
      j += sep + json_string(p);
      sep = ", ";
    }
    j += "], \"max_payload\": " + std::to_string(m->max_payload());
    if (m->family == Family::zmq && zmq_hooks().library != nullptr)  // 4.8
      j += ", \"library\": " + json_string(zmq_hooks().library());
    if (m->family == Family::nng && nng_hooks().library != nullptr)  // 4.9
      j += ", \"library\": " + json_string(nng_hooks().library());
    if (m->family == Family::redis && redis_hooks().library != nullptr)  // 4.10
      j += ", \"library\": " + json_string(redis_hooks().library());
    if (m->family == Family::nats && nats_hooks().library != nullptr)  // 4.11
      j += ", \"library\": " + json_string(nats_hooks().library());
    if (m->family == Family::iceoryx2 && iceoryx2_hooks().library != nullptr)  // 4.12
      j += ", \"library\": " + json_string(iceoryx2_hooks().library());
    if (m->burst != nullptr) {  // 11.4, 11.5: the server models of this build
      if (m->burst->burst)
        j += ", \"server_models\": " + names_json(burst::server_model_names(false));
      j += ", \"load_models\": " +
           names_json(burst::server_model_names(true, m->burst->reuseport));
    } else if (m->queue_load != nullptr) {  // 11.5.5
      const auto models = load::queue_models();
      j += ", \"load_models\": " +
           names_json(std::vector<std::string_view>(models.begin(), models.end()));
    } else if (m->family == Family::rpc && rpc_hooks().load_models != nullptr) {
      const auto models = rpc_hooks().load_models(m->name);  // 11.5.4
      if (!models.empty())
        j += ", \"load_models\": " +
             names_json(std::vector<std::string_view>(models.begin(), models.end()));
    }
    j += "}";
    comma = ", ";
  }
  return j + "}}\n";
}

}  // namespace ipclab
