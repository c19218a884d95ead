// burst (PROTOCOL.md 11.4): the one table of server models. `serve --server-model M` finds M
// here; `capabilities` lists the names (io_uring only when liburing was found at build time).
#pragma once

#include <string_view>
#include <vector>

#include "options.hpp"

namespace ipclab::burst {

struct Server;

struct ServerModel {
  std::string_view name;
  // The model's pool size or loop count when --workers is not given (0: it has none).
  std::uint32_t (*default_workers)();
  // Work done before READY (pre-forked children, pool threads, more listeners).
  void (*start)(Server& server);
  // Serves until every one of the n connections has ended; then the caller finishes.
  void (*serve)(Server& server);
};

// The models of this build; load: those that serve load (capabilities' load_models);
// reuseport false: without those that need SO_REUSEPORT (a mechanism lacking it, uds).
std::vector<std::string_view> server_model_names(bool load = false, bool reuseport = true);

// `serve` with --server-model: checks, listens, announces READY, serves, writes the phases
// file (burst; a load server runs until it is stopped and writes none), exits. Returns only an
// exit code for what is unsupported.
int run_burst_server(const ServeOptions& o);

}  // namespace ipclab::burst
