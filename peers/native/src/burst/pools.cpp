// The pooled server models of PROTOCOL.md 11.4: thread-pool (the main loop accepts and hands
// each connection to one of W threads; the hand-off is its spawn) and process-pool (W pre-forked
// children accept on the shared socket themselves).
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "burst/models.hpp"
#include "burst/serving.hpp"
#include "error.hpp"
#include "patterns.hpp"  // now_ns

namespace ipclab::burst {

namespace {

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
    s.time(c.index).task_start = now_ns();
    serve_connection(s, c.fd, c.index);
  }
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

}  // namespace

void start_thread_pool(Server& s) {
  for (std::uint32_t w = 0; w < s.workers; ++w)
    g_pool.threads.emplace_back(pool_worker, std::ref(s));
}

void serve_thread_pool(Server& s) {
  Acceptor a;
  for (std::uint64_t i = 0; i < s.n; ++i) {
    const Accepted c = accept_connection(s, a);
    ConnTimes& t = s.time(c.index);
    t.spawn_start = now_ns();
    g_pool.queue.put(c);
    t.spawn_end = now_ns();
  }
  for (std::uint32_t w = 0; w < s.workers; ++w) g_pool.queue.put(Accepted{});
  for (std::thread& thread : g_pool.threads) thread.join();
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

}  // namespace ipclab::burst
