// burst (PROTOCOL.md 11.4): what every server model shares. The Server holds the listening
// socket and the per-connection clock readings in memory shared with forked children; accept_one
// and serve_connection are the two steps every blocking model is made of, and time themselves.
// The phases file is written once, by finish() or by the SIGTERM/SIGINT handler, which first
// kills and reaps every child still running.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "buffer_growth.hpp"  // grow_toward, for the readers of every model
#include "burst/records.hpp"
#include "burst/sockets.hpp"
#include "frame.hpp"
#include "options.hpp"

namespace ipclab::load {
class Gate;  // load/faults.hpp
}

namespace ipclab::burst {

// Counters every thread and process of the server updates (in the shared mapping).
struct SharedCounters {
  std::atomic<std::uint64_t> accepted;  // conn_index of the next accepted connection
  std::atomic<std::uint64_t> ended;     // connections finished, served or not
  std::atomic<std::uint64_t> claims;    // process-pool: accept calls handed out
};

struct Exchange;  // exchange.hpp

struct Server {
  const ServeOptions& options;
  const Sockets& sockets;
  const Exchange& exchange;   // burst's or load's
  std::uint64_t n = 0;        // --connections; load: no end (UINT64_MAX)
  std::uint32_t workers = 0;  // the model's pool size / loops (after its default)
  int listen_fd = -1;
  std::string endpoint;       // as READY names it
  SharedCounters* counters = nullptr;
  ConnTimes* times = nullptr;  // `slots` entries
  // burst: n, one per connection. load: a ring the models' clock readings go to and that is
  // never written out, so the models need no case of their own for it.
  std::uint64_t slots = 0;
  int stop_fd = -1;            // eventfd, readable once `ended` reaches n (event loops)
  load::Gate* gate = nullptr;  // load's test fault (11.5.1), nullptr without one
  bool nodelay = false;        // load over tcp: TCP_NODELAY on every accepted connection

  ConnTimes& time(std::uint64_t index) const noexcept { return times[index % slots]; }
};

// One acceptor (main loop, pool child, event loop): its previous connection gets its `loop`
// phase when the next accept call starts.
struct Acceptor {
  std::int32_t worker = 0;
  std::int64_t last = -1;
};

struct Accepted {
  int fd = -1;  // -1: nothing accepted (a non-blocking listener had none)
  std::uint64_t index = 0;
};

// Sets up the shared memory, the stop eventfd and the SIGTERM/SIGINT handler.
void prepare(Server& server);
// One accept call on `listen_fd` (SOCK_CLOEXEC | extra_flags), timed. Retries EINTR and
// ECONNABORTED inside the same call's time; on a non-blocking listener EAGAIN gives fd -1.
Accepted accept_one(Server& server, int listen_fd, Acceptor& acceptor, int extra_flags = 0);
// The next connection of the server's blocking listener (there, accept_one always returns one).
inline Accepted accept_connection(Server& server, Acceptor& acceptor) {
  for (;;) {
    const Accepted c = accept_one(server, server.listen_fd, acceptor);
    if (c.fd >= 0) return c;
  }
}
// Serves the accepted connection with the server's exchange, closes it, records it (blocking fd).
void serve_connection(Server& server, int fd, std::uint64_t index);
// Counts one connection as ended (signals stop_fd after the last). Every model calls it once
// per accepted connection, through serve_connection or its own loop.
void connection_ended(Server& server);
// Blocks until every connection has ended (a model whose tasks run on without being joined).
void wait_all_ended(const Server& server);
// What every accepted socket gets before it is served (load over tcp: TCP_NODELAY).
void accepted_socket(const Server& server, int fd) noexcept;
// The ConnError of a failed recv/send (errno).
ConnError error_of_errno(int err) noexcept;
// Children (fork): every one is registered so that a stop kills and reaps it.
void add_child(pid_t pid);
void reap(pid_t pid);  // blocking waitpid of one registered child
void reap_all();       // blocking waitpid of every registered child
void reap_finished();  // non-blocking: reaps the registered children that have exited
// In a forked child, first thing: die with the parent, default signal dispositions.
void become_child(pid_t parent) noexcept;

// Writes the phases file (burst) and exits 0 (the end of a model that served every connection).
[[noreturn]] void finish(Server& server);
// A failure of the server itself: kills and reaps the children, exits with `code`, no file.
[[noreturn]] void abandon(int code) noexcept;

}  // namespace ipclab::burst
