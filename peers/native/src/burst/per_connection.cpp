// The server models of PROTOCOL.md 11.4 with no pool: iterative (no task), thread (a new thread
// per connection) and process (a fork per connection). Each times the spawn around the call that
// hands the connection to its new task; accept_one and serve_connection (serving.hpp) time the
// rest.
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "burst/models.hpp"
#include "burst/serving.hpp"
#include "error.hpp"
#include "patterns.hpp"  // now_ns

namespace ipclab::burst {

namespace {

// A connection refused a task (thread or fork failed): ended, with the reason once on stderr.
void could_not_spawn(Server& s, int fd, std::uint64_t index, const char* what, int err) {
  static bool said = false;
  if (!said) print_line(std::string("io: ") + what + ": " + std::strerror(err));
  said = true;
  ::close(fd);
  s.time(index).finish(ConnError::io, now_ns());
  connection_ended(s);
}

// thread: what a new thread is given, and its start.
struct Task {
  Server* server;
  int fd;
  std::uint64_t index;
};

// The task is the thread's own (allocated per connection, freed here): the thread is detached,
// so a load server, whose connections never stop coming, keeps nothing per ended connection.
void* task_main(void* arg) {
  const std::int64_t start = now_ns();  // the task's first instruction
  const Task t = *static_cast<const Task*>(arg);
  delete static_cast<const Task*>(arg);
  t.server->time(t.index).task_start = start;
  serve_connection(*t.server, t.fd, t.index);
  return nullptr;
}

}  // namespace

// ---- iterative: accept, serve, accept ---------------------------------------------------------

void serve_iterative(Server& s) {
  Acceptor a;
  for (std::uint64_t i = 0; i < s.n; ++i) {
    const Accepted c = accept_connection(s, a);
    serve_connection(s, c.fd, c.index);
  }
}

// ---- thread: a new thread per connection ------------------------------------------------------

void serve_thread(Server& s) {
  pthread_attr_t detached;
  ::pthread_attr_init(&detached);
  ::pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
  Acceptor a;
  for (std::uint64_t i = 0; i < s.n; ++i) {
    const Accepted c = accept_connection(s, a);
    auto* task = new Task{&s, c.fd, c.index};
    ConnTimes& t = s.time(c.index);
    pthread_t thread;
    t.spawn_start = now_ns();
    const int rc = ::pthread_create(&thread, &detached, task_main, task);
    t.spawn_end = now_ns();
    if (rc != 0) {
      delete task;
      could_not_spawn(s, c.fd, c.index, "pthread_create", rc);
    }
  }
  ::pthread_attr_destroy(&detached);
  wait_all_ended(s);
}

// ---- process: fork per connection -------------------------------------------------------------

void serve_process(Server& s) {
  const pid_t parent = ::getpid();
  Acceptor a;
  for (std::uint64_t i = 0; i < s.n; ++i) {
    const Accepted c = accept_connection(s, a);
    ConnTimes& t = s.time(c.index);
    t.spawn_start = now_ns();
    const pid_t pid = ::fork();
    if (pid == 0) {
      t.task_start = now_ns();  // the child's first instruction
      become_child(parent);
      ::close(s.listen_fd);
      serve_connection(s, c.fd, c.index);
      _exit(0);
    }
    t.spawn_end = now_ns();
    if (pid < 0) {
      could_not_spawn(s, c.fd, c.index, "fork", errno);
      continue;
    }
    add_child(pid);
    ::close(c.fd);
    reap_finished();  // without blocking the loop
  }
  reap_all();
}

}  // namespace ipclab::burst
