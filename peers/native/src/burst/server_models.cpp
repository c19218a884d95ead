// The table of PROTOCOL.md 11.4's server models and `serve --server-model`. Every model is built
// from accept_one and serve_connection (serving.hpp), which time the accept, loop, transfer and
// total phases the same way for all; a model adds only its own spawn and start_delay readings
// around the call that hands a connection to a new task. The models are in the files of their
// kind (models.hpp): per_connection.cpp, pools.cpp, event_loop.cpp, io_uring.cpp.
#include "burst/server_models.hpp"

#include <sched.h>

#include <string>

#include "burst/models.hpp"
#include "burst/serving.hpp"
#include "error.hpp"
#include "lifecycle.hpp"
#include "mechanisms.hpp"
#include "result.hpp"

namespace ipclab::burst {

namespace {

std::uint32_t no_workers() { return 0; }
std::uint32_t pool_workers() { return 4; }
std::uint32_t cpu_workers() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  const int n = CPU_COUNT(&set);
  return n > 0 ? static_cast<std::uint32_t>(n) : 1;
}
void nothing_to_start(Server&) {}

// ---- the table --------------------------------------------------------------------------------

bool always() { return true; }

struct Row {
  ServerModel model;
  bool reuseport;  // the first listener needs SO_REUSEPORT before it binds
  bool (*available)() = always;  // whether this machine lets the model run
};

const Row kModels[] = {
    {{"iterative", no_workers, nothing_to_start, serve_iterative}, false},
    {{"thread", no_workers, nothing_to_start, serve_thread}, false},
    {{"process", no_workers, nothing_to_start, serve_process}, false},
    {{"thread-pool", pool_workers, start_thread_pool, serve_thread_pool}, false},
    {{"process-pool", pool_workers, start_process_pool, serve_process_pool}, false},
    {{"epoll", no_workers, start_epoll, serve_epoll}, false},
    {{"epoll-reuseport", cpu_workers, start_reuseport, serve_reuseport}, true},
#ifdef IPCLAB_WITH_URING
    {{"io_uring", no_workers, nothing_to_start, serve_io_uring}, false, io_uring_works},
#endif
};

const Row* find_row(std::string_view name) {
  for (const Row& row : kModels)
    if (row.model.name == name && row.available()) return &row;
  return nullptr;
}

int unsupported(const std::string& why) {
  print_line("unsupported: " + why);
  return exit_code(ErrorKind::unsupported);
}

}  // namespace

std::vector<std::string_view> server_model_names() {
  std::vector<std::string_view> names;
  for (const Row& row : kModels)
    if (row.available()) names.push_back(row.model.name);
  return names;
}

int run_burst_server(const ServeOptions& o) {
  if (o.mechanism == nullptr)
    return unsupported("mechanism '" + o.mechanism_name + "' is not implemented");
  if (o.mechanism->burst == nullptr)
    return unsupported("mechanism '" + o.mechanism_name + "' has no burst server (11.4)");
  const Row* row = find_row(o.server_model);
  if (row == nullptr) {
    std::string known;
    for (const std::string_view name : server_model_names())
      known += (known.empty() ? "" : ", ") + std::string(name);
    return unsupported("server model '" + o.server_model + "' is not implemented (" + known + ")");
  }
  const ServerModel& model = row->model;
  const std::uint32_t workers = o.workers != 0 ? o.workers : model.default_workers();
  Server s{o, *o.mechanism->burst, o.connections, workers, -1, {}, nullptr, nullptr, -1};
  try {
    {
      SignalBlock block;  // no stop before the handler that writes the phases file is in place
      install_server_lifecycle();
      prepare(s);
    }
    s.listen_fd = s.sockets.listen(o.endpoint, o.backlog, row->reuseport, s.endpoint);
    model.start(s);
    announce_ready(s.endpoint, o.mechanism_name,
                   ", \"server_model\": " + json_string(model.name));
    model.serve(s);
  } catch (const PeerError& e) {
    print_line(std::string(kind_name(e.kind())) + ": " + e.what());
    abandon(exit_code(e.kind()));
  } catch (const std::exception& e) {
    print_line(std::string("internal: ") + e.what());
    abandon(exit_code(ErrorKind::internal));
  }
  finish(s);
}

}  // namespace ipclab::burst
