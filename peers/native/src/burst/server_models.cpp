// The table of PROTOCOL.md 11.4's server models and `serve --server-model` (with `--pattern
// load`, the load server of 11.5.1: the same models over persistent connections). Every model is built
// from accept_one and serve_connection (serving.hpp), which time the accept, loop, transfer and
// total phases the same way for all; a model adds only its own spawn and start_delay readings
// around the call that hands a connection to a new task. The models are in the files of their
// kind (models.hpp): per_connection.cpp, pools.cpp, event_loop.cpp, io_uring.cpp.
#include "burst/server_models.hpp"

#include <sched.h>

#include <string>

#include "burst/exchange.hpp"
#include "burst/models.hpp"
#include "burst/serving.hpp"
#include "error.hpp"
#include "lifecycle.hpp"
#include "load/faults.hpp"
#include "mechanisms.hpp"
#include "patterns.hpp"  // now_ns
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
  bool load;       // serves load (11.5.1) too: persistent connections, exchange.hpp
  bool (*available)() = always;  // whether this machine lets the model run
};

const Row kModels[] = {
    {{"iterative", no_workers, nothing_to_start, serve_iterative}, false, true},
    {{"thread", no_workers, nothing_to_start, serve_thread}, false, true},
    {{"process", no_workers, nothing_to_start, serve_process}, false, true},
    {{"thread-pool", pool_workers, start_thread_pool, serve_thread_pool}, false, true},
    {{"process-pool", pool_workers, start_process_pool, serve_process_pool}, false, true},
    {{"epoll", no_workers, start_epoll, serve_epoll}, false, true},
    {{"epoll-reuseport", cpu_workers, start_reuseport, serve_reuseport}, true, true},
#ifdef IPCLAB_WITH_URING
    {{"io_uring", no_workers, nothing_to_start, serve_io_uring}, false, true, io_uring_works},
#endif
};

bool serves(const Row& row, bool load, bool reuseport) {
  return row.available() && (!load || row.load) && (reuseport || !row.reuseport);
}

const Row* find_row(std::string_view name, bool load, bool reuseport) {
  for (const Row& row : kModels)
    if (row.model.name == name && serves(row, load, reuseport)) return &row;
  return nullptr;
}

// The row of a server that passed unsupported_reason.
const Row& row_of(const ServeOptions& o) {
  return *find_row(o.server_model, o.load, o.mechanism->burst->reuseport);
}

int unsupported(const std::string& why) {
  print_line("unsupported: " + why);
  return exit_code(ErrorKind::unsupported);
}

}  // namespace

std::vector<std::string_view> server_model_names(bool load, bool reuseport) {
  std::vector<std::string_view> names;
  for (const Row& row : kModels)
    if (serves(row, load, reuseport)) names.push_back(row.model.name);
  return names;
}

namespace {

// What this server cannot do, or an empty string: the mechanism, the model, the fault.
std::string unsupported_reason(const ServeOptions& o) {
  if (o.mechanism == nullptr) return "mechanism '" + o.mechanism_name + "' is not implemented";
  const Sockets* sockets = o.mechanism->burst;
  if (sockets == nullptr || (!o.load && !sockets->burst))
    return "mechanism '" + o.mechanism_name + "' has no " +
           (o.load ? "load server (11.5)" : "burst server (11.4)");
  if (find_row(o.server_model, o.load, sockets->reuseport) == nullptr) {
    std::string known;
    for (const std::string_view name : server_model_names(o.load, sockets->reuseport))
      known += (known.empty() ? "" : ", ") + std::string(name);
    return "server model '" + o.server_model + "' is not implemented" +
           (o.load ? " for load over " + o.mechanism_name + " (" : " (") + known + ")";
  }
  const bool load_fault = o.fault == Fault::stall || o.fault == Fault::capacity;
  const bool stream_fault = o.fault == Fault::drop_stream_message ||
                            o.fault == Fault::flip_stream_byte;
  if (o.load && stream_fault) return "a load server carries no stream: no stream fault";
  if (!o.load && load_fault) return "--fault stall and capacity:N are for load servers (11.5.1)";
  return {};
}

}  // namespace

int run_burst_server(const ServeOptions& o) {
  if (const std::string why = unsupported_reason(o); !why.empty()) return unsupported(why);
  const ServerModel& model = row_of(o).model;
  const std::uint32_t workers = o.workers != 0 ? o.workers : model.default_workers();
  const Exchange& exchange = o.load ? kLoadExchange : kBurstExchange;
  Server s{o, *o.mechanism->burst, exchange, o.load ? UINT64_MAX : o.connections, workers, -1, {}};
  s.nodelay = o.load && o.nodelay && s.sockets.nodelay;
  try {
    {
      SignalBlock block;  // no stop before the handler that writes the phases file is in place
      install_server_lifecycle();
      prepare(s);
      s.gate = load::Gate::create(o);
    }
    const bool reuseport = row_of(o).reuseport;
    s.listen_fd = s.sockets.listen(o.endpoint, o.backlog, reuseport, s.endpoint);
    model.start(s);
    if (s.gate != nullptr) s.gate->open(now_ns());  // the stall's seconds count from READY
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
