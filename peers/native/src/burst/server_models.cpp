// The server models of PROTOCOL.md 11.4, one function (or two) each, and their table at the end.
// Every model is built from accept_one and serve_connection (serving.hpp), which time the
// accept, loop, transfer and total phases the same way for all; a model adds only its own
// spawn and start_delay readings around the call that hands a connection to a new task.
#include "burst/server_models.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "burst/serving.hpp"
#include "error.hpp"
#include "lifecycle.hpp"
#include "mechanisms.hpp"
#include "patterns.hpp"  // now_ns
#include "result.hpp"
#include "server.hpp"    // RequestHandler

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

// A connection refused a task (thread or fork failed): ended, with the reason once on stderr.
void could_not_spawn(Server& s, int fd, std::uint64_t index, const char* what, int err) {
  static bool said = false;
  if (!said) print_line(std::string("io: ") + what + ": " + std::strerror(err));
  said = true;
  ::close(fd);
  s.times[index].finish(ConnError::io, now_ns());
  connection_ended(s);
}

// The connection a blocking accept returned (a blocking listener always returns one).
Accepted next(Server& s, Acceptor& a) {
  for (;;) {
    const Accepted c = accept_one(s, s.listen_fd, a);
    if (c.fd >= 0) return c;
  }
}

// ---- iterative: accept, serve, accept ---------------------------------------------------------

void serve_iterative(Server& s) {
  Acceptor a;
  for (std::uint64_t i = 0; i < s.n; ++i) {
    const Accepted c = next(s, a);
    serve_connection(s, c.fd, c.index);
  }
}

// ---- thread: a new thread per connection ------------------------------------------------------

struct Task {
  Server* server;
  int fd;
  std::uint64_t index;
};

void* task_main(void* arg) {
  const std::int64_t start = now_ns();  // the task's first instruction
  const Task& t = *static_cast<const Task*>(arg);
  t.server->times[t.index].task_start = start;
  serve_connection(*t.server, t.fd, t.index);
  return nullptr;
}

void serve_thread(Server& s) {
  std::vector<Task> tasks(s.n);
  std::vector<pthread_t> threads;
  threads.reserve(s.n);
  Acceptor a;
  for (std::uint64_t i = 0; i < s.n; ++i) {
    const Accepted c = next(s, a);
    Task& task = tasks[c.index];
    task = {&s, c.fd, c.index};
    ConnTimes& t = s.times[c.index];
    pthread_t thread;
    t.spawn_start = now_ns();
    const int rc = ::pthread_create(&thread, nullptr, task_main, &task);
    t.spawn_end = now_ns();
    if (rc != 0) could_not_spawn(s, c.fd, c.index, "pthread_create", rc);
    else threads.push_back(thread);
  }
  for (const pthread_t thread : threads) ::pthread_join(thread, nullptr);
}

// ---- process: fork per connection -------------------------------------------------------------

void serve_process(Server& s) {
  const pid_t parent = ::getpid();
  std::vector<pid_t> children;
  children.reserve(s.n);
  Acceptor a;
  for (std::uint64_t i = 0; i < s.n; ++i) {
    const Accepted c = next(s, a);
    ConnTimes& t = s.times[c.index];
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
    children.push_back(pid);
    ::close(c.fd);
    reap_finished();  // without blocking the loop
  }
  for (const pid_t pid : children) reap(pid);
}

// ---- thread-pool: the main loop hands connections to W threads ------------------------------

class WorkQueue {
 public:
  void put(Accepted c) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(c);
    }
    ready_.notify_one();
  }
  Accepted take() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return !queue_.empty(); });
    const Accepted c = queue_.front();
    queue_.pop_front();
    return c;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Accepted> queue_;
};

struct ThreadPool {
  WorkQueue queue;
  std::vector<std::thread> threads;
};
ThreadPool g_pool;

void pool_worker(Server& s) {
  for (;;) {
    const Accepted c = g_pool.queue.take();
    if (c.fd < 0) return;  // the end
    s.times[c.index].task_start = now_ns();
    serve_connection(s, c.fd, c.index);
  }
}

void start_thread_pool(Server& s) {
  for (std::uint32_t w = 0; w < s.workers; ++w)
    g_pool.threads.emplace_back(pool_worker, std::ref(s));
}

void serve_thread_pool(Server& s) {
  Acceptor a;
  for (std::uint64_t i = 0; i < s.n; ++i) {
    const Accepted c = next(s, a);
    ConnTimes& t = s.times[c.index];
    t.spawn_start = now_ns();
    g_pool.queue.put(c);
    t.spawn_end = now_ns();
  }
  for (std::uint32_t w = 0; w < s.workers; ++w) g_pool.queue.put(Accepted{});
  for (std::thread& thread : g_pool.threads) thread.join();
}

// ---- process-pool: W pre-forked children accept on the shared socket --------------------------

std::vector<pid_t> g_pool_children;

// One accept call per claim, so that together the children make exactly n and none is left
// blocked in accept once every connection has come.
void pool_child(Server& s, std::int32_t worker) {
  Acceptor a{worker};
  while (s.counters->claims.fetch_add(1) < s.n) {
    const Accepted c = accept_one(s, s.listen_fd, a);
    if (c.fd >= 0) serve_connection(s, c.fd, c.index);
  }
}

void start_process_pool(Server& s) {
  const pid_t parent = ::getpid();
  for (std::uint32_t w = 0; w < s.workers; ++w) {
    const pid_t pid = ::fork();
    if (pid < 0) throw_io("fork (process pool)");
    if (pid == 0) {
      become_child(parent);
      try {
        pool_child(s, static_cast<std::int32_t>(w));
      } catch (const PeerError& e) {
        print_line(std::string(kind_name(e.kind())) + ": pool process " + std::to_string(w) +
                   ": " + e.what());
        _exit(exit_code(e.kind()));
      }
      _exit(0);
    }
    add_child(pid);
    g_pool_children.push_back(pid);
  }
}

void serve_process_pool(Server&) {
  for (const pid_t pid : g_pool_children) reap(pid);
}

// ---- epoll: non-blocking connections in one event loop per listener -----------------------------

// A connection of an event loop: its request as it arrives, then what is left of its response.
struct LoopConn {
  std::uint64_t index = 0;
  std::vector<std::uint8_t> in = std::vector<std::uint8_t>(kHeaderSize);
  std::size_t got = 0;
  Header header{};
  std::vector<std::uint8_t> out;  // a response the socket did not take at once
  std::size_t sent = 0;
};

class EventLoop {
 public:
  EventLoop(Server& s, int listen_fd, std::int32_t worker)
      : s_(s), listen_fd_(listen_fd), acceptor_{worker} {
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_ < 0) throw_io("epoll_create1");
    watch(listen_fd_, EPOLLIN, EPOLL_CTL_ADD);
    watch(s_.stop_fd, EPOLLIN, EPOLL_CTL_ADD);
  }
  ~EventLoop() { ::close(epoll_); }

  // Until every connection of the server has ended (stop_fd).
  void run() {
    epoll_event events[64];
    for (;;) {
      const int n = ::epoll_wait(epoll_, events, 64, -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw_io("epoll_wait");
      }
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == s_.stop_fd) return;
        if (fd == listen_fd_) accept_next();
        else on_ready(fd, events[i].events);
      }
    }
  }

 private:
  void watch(int fd, std::uint32_t events, int op) {
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = fd;
    if (::epoll_ctl(epoll_, op, fd, &ev) != 0) throw_io("epoll_ctl");
  }

  // One accept per turn of the loop, as the model says.
  void accept_next() {
    if (s_.counters->accepted.load() >= s_.n) {
      watch(listen_fd_, 0, EPOLL_CTL_DEL);
      return;
    }
    const Accepted c = accept_one(s_, listen_fd_, acceptor_, SOCK_NONBLOCK);
    if (c.fd < 0) return;
    conns_[c.fd].index = c.index;
    watch(c.fd, EPOLLIN, EPOLL_CTL_ADD);
  }

  void on_ready(int fd, std::uint32_t events) {
    LoopConn& c = conns_[fd];
    if (!c.out.empty()) return write_rest(fd, c);
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) read_some(fd, c);
  }

  void read_some(int fd, LoopConn& c) {
    ConnTimes& t = s_.times[c.index];
    if (t.transfer_start == 0) t.transfer_start = now_ns();
    for (;;) {
      const std::size_t need =
          c.got < kHeaderSize ? kHeaderSize : kHeaderSize + c.header.length;
      if (c.got >= need) return respond(fd, c);
      const ssize_t r = ::recv(fd, c.in.data() + c.got, need - c.got, 0);
      if (r == 0) return end(fd, ConnError::eof);
      if (r < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        return end(fd, error_of_errno(errno));
      }
      c.got += static_cast<std::size_t>(r);
      if (c.got == kHeaderSize) {
        c.header = decode_header(c.in.data());
        if (const char* why = check_burst_header(c.header)) {
          print_line(std::string("rejected frame: ") + why);
          return end(fd, ConnError::protocol);
        }
        c.in.resize(kHeaderSize + c.header.length);
      }
    }
  }

  void respond(int fd, LoopConn& c) {
    RequestHandler& answer = handler();
    const std::uint8_t* frame = answer.response(c.header.sequence, c.header.length, c.header.wanted);
    const std::size_t total = kHeaderSize + c.header.wanted;
    const ssize_t w = ::send(fd, frame, total, MSG_NOSIGNAL);
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      answer.after_send();
      return end(fd, error_of_errno(errno));
    }
    const std::size_t sent = w > 0 ? static_cast<std::size_t>(w) : 0;
    if (sent < total) {  // the rest when the socket has room; the frame buffer is shared
      c.out.assign(frame + sent, frame + total);
      answer.after_send();
      watch(fd, EPOLLOUT, EPOLL_CTL_MOD);
      return;
    }
    answer.after_send();
    responded(fd, c);
  }

  void write_rest(int fd, LoopConn& c) {
    while (c.sent < c.out.size()) {
      const ssize_t w = ::send(fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        return end(fd, error_of_errno(errno));
      }
      c.sent += static_cast<std::size_t>(w);
    }
    responded(fd, c);
  }

  void responded(int fd, LoopConn& c) {
    s_.times[c.index].transfer_end = now_ns();
    const bool ok = handler().request_ok(c.in.data() + kHeaderSize, c.header.length,
                                         c.header.sequence);
    end(fd, ok ? ConnError::none : ConnError::payload_mismatch);
  }

  void end(int fd, ConnError error) {
    const std::uint64_t index = conns_[fd].index;
    conns_.erase(fd);
    ::close(fd);
    s_.times[index].finish(error, now_ns());
    connection_ended(s_);
  }

  RequestHandler& handler() {
    if (!handler_) handler_.emplace(ServerConfig{s_.options.seed, false, StreamTally::Fault::none});
    return *handler_;
  }

  Server& s_;
  int listen_fd_;
  Acceptor acceptor_;
  int epoll_ = -1;
  std::unordered_map<int, LoopConn> conns_;
  std::optional<RequestHandler> handler_;
};

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) throw_io("fcntl(O_NONBLOCK)");
}

void start_epoll(Server& s) { set_nonblocking(s.listen_fd); }

void serve_epoll(Server& s) { EventLoop(s, s.listen_fd, 0).run(); }

// ---- epoll-reuseport: W loops, each with its own listener on the same port --------------------

std::vector<int> g_listeners;

void start_reuseport(Server& s) {
  g_listeners.push_back(s.listen_fd);
  const Endpoint same = s.sockets.same_port(s.endpoint);
  std::string bound;
  for (std::uint32_t w = 1; w < s.workers; ++w)
    g_listeners.push_back(s.sockets.listen(same, s.options.backlog, true, bound));
  for (const int fd : g_listeners) set_nonblocking(fd);
}

void serve_reuseport(Server& s) {
  std::vector<std::thread> loops;
  for (std::size_t w = 0; w < g_listeners.size(); ++w)
    loops.emplace_back([&s, w] {
      try {
        EventLoop(s, g_listeners[w], static_cast<std::int32_t>(w)).run();
      } catch (const PeerError& e) {
        print_line(std::string(kind_name(e.kind())) + ": loop " + std::to_string(w) + ": " +
                   e.what());
        exit_process(exit_code(e.kind()));
      }
    });
  for (std::thread& loop : loops) loop.join();
}

// ---- io_uring (burst/io_uring.cpp, only with liburing) ----------------------------------------

#ifdef IPCLAB_WITH_URING
}  // namespace
void serve_io_uring(Server& s);
bool io_uring_works();
namespace {
#endif

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
