// burst (PROTOCOL.md 11.4): the server models the table of server_models.cpp points at, each
// defined in the file of its kind. Internal to burst/.
#pragma once

#include "burst/serving.hpp"

namespace ipclab::burst {

// per_connection.cpp: iterative (no task), thread (a thread per connection), process (a fork
// per connection).
void serve_iterative(Server& s);
void serve_thread(Server& s);
void serve_process(Server& s);

// pools.cpp: thread-pool (W threads fed by the main loop), process-pool (W pre-forked children
// that accept themselves).
void start_thread_pool(Server& s);
void serve_thread_pool(Server& s);
void start_process_pool(Server& s);
void serve_process_pool(Server& s);

// event_loop.cpp: epoll (one loop), epoll-reuseport (W loops, a listener each).
void start_epoll(Server& s);
void serve_epoll(Server& s);
void start_reuseport(Server& s);
void serve_reuseport(Server& s);

#ifdef IPCLAB_WITH_URING
// io_uring.cpp, only with liburing: one ring; and whether this kernel allows io_uring.
void serve_io_uring(Server& s);
bool io_uring_works();
#endif

}  // namespace ipclab::burst
