#include "burst/serving.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "error.hpp"
#include "lifecycle.hpp"
#include "burst/exchange.hpp"
#include "patterns.hpp"  // now_ns

namespace ipclab::burst {

namespace {

// What the signal handler needs, set up before any connection (no allocation in the handler).
Server* g_server = nullptr;
pid_t g_pid = 0;
char* g_buffer = nullptr;  // phases_capacity(n) bytes
std::string g_path, g_tmp;
std::vector<pid_t> g_children;  // capacity reserved up front; 0 = reaped
std::atomic<std::size_t> g_child_count{0};
std::atomic<bool> g_finishing{false};

void* shared_zeroed(std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw_io("mmap (shared records)");
  return p;
}

// Async-signal-safe: kills and reaps every registered child.
void stop_children() noexcept {
  const std::size_t count = g_child_count.load();
  for (std::size_t i = 0; i < count; ++i)
    if (g_children[i] > 0) ::kill(g_children[i], SIGKILL);
  for (std::size_t i = 0; i < count; ++i)
    if (g_children[i] > 0) {
      while (::waitpid(g_children[i], nullptr, 0) < 0 && errno == EINTR) {
      }
      g_children[i] = 0;
    }
}

// Async-signal-safe: formats and writes the phases file (temporary name, then rename).
bool write_phases() noexcept {
  const std::uint64_t accepted = g_server->counters->accepted.load();
  const std::size_t rows = accepted < g_server->n ? accepted : g_server->n;
  const std::size_t size = format_phases(g_server->times, rows, g_buffer);
  const int fd = ::open(g_tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < size) {
    const ssize_t w = ::write(fd, g_buffer + done, size - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
  const bool ok = ::close(fd) == 0 && done == size;
  if (ok && ::rename(g_tmp.c_str(), g_path.c_str()) == 0) return true;
  ::unlink(g_tmp.c_str());
  return false;
}

// Stopping early (SIGTERM, SIGINT, stdin's end through the watcher): the records so far.
void on_stop(int) {
  if (::getpid() != g_pid) _exit(0);                 // a child that has not reset it yet
  if (g_finishing.exchange(true)) return;            // finish() is already writing
  stop_children();
  const bool ok = g_path.empty() || write_phases();  // load writes no file
  remove_created_paths();
  _exit(ok ? 0 : exit_code(ErrorKind::io));
}

}  // namespace

ConnError error_of_errno(int err) noexcept {
  return err == ECONNRESET || err == EPIPE ? ConnError::reset : ConnError::io;
}

// load: the clock-reading ring's size, and room for as many children alive at once.
constexpr std::uint64_t kLoadSlots = 4096;

void prepare(Server& server) {
  const bool load = server.exchange.persistent;
  const std::uint64_t n = server.n;
  server.slots = load ? kLoadSlots : n;
  server.counters = static_cast<SharedCounters*>(shared_zeroed(sizeof(SharedCounters)));
  server.times = static_cast<ConnTimes*>(shared_zeroed(server.slots * sizeof(ConnTimes)));
  server.stop_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (server.stop_fd < 0) throw_io("eventfd");
  g_server = &server;
  g_pid = ::getpid();
  if (!load) {
    g_buffer = static_cast<char*>(shared_zeroed(phases_capacity(n)));
    g_path = server.options.phases_file;
    g_tmp = g_path + ".tmp-" + std::to_string(g_pid);
  }
  g_children.assign(server.slots + server.workers + 1, 0);
  install_termination_handler(on_stop);
  ::signal(SIGCHLD, SIG_DFL);  // children are reaped one by one, by pid
}

Accepted accept_one(Server& server, int listen_fd, Acceptor& acceptor, int extra_flags) {
  const std::int64_t start = now_ns();
  if (acceptor.last >= 0) server.time(acceptor.last).next_accept_start = start;
  acceptor.last = -1;
  int fd;
  do {
    fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | extra_flags);
  } while (fd < 0 && (errno == EINTR || errno == ECONNABORTED));
  const std::int64_t end = now_ns();
  if (fd < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {};
    throw_io("accept");
  }
  const std::uint64_t index = server.counters->accepted.fetch_add(1);
  if (index >= server.n) {  // more clients than --connections: not ours to time
    ::close(fd);
    return {};
  }
  accepted_socket(server, fd);
  ConnTimes& t = server.time(index);
  t.accept_start = start;
  t.accept_end = end;
  t.worker = acceptor.worker;
  acceptor.last = static_cast<std::int64_t>(index);
  return {fd, index};
}

void serve_connection(Server& server, int fd, std::uint64_t index) {
  ConnTimes& t = server.time(index);
  t.transfer_start = now_ns();
  const ConnError error = server.exchange.serve(server, fd, t);
  ::close(fd);
  t.finish(error, now_ns());
  connection_ended(server);
}

void accepted_socket(const Server& server, int fd) noexcept {
  if (!server.nodelay) return;
  const int on = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

void wait_all_ended(const Server& server) {
  pollfd p{server.stop_fd, POLLIN, 0};
  while (server.counters->ended.load() < server.n) ::poll(&p, 1, -1);
}

void connection_ended(Server& server) {
  if (server.counters->ended.fetch_add(1) + 1 == server.n) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t w = ::write(server.stop_fd, &one, sizeof one);
  }
}

// A reaped child's slot (0) is taken again first, so a load server's children, which come and
// go for as long as it runs, need only as many slots as are alive at once.
void add_child(pid_t pid) {
  const std::size_t count = g_child_count.load();
  for (std::size_t i = 0; i < count; ++i)
    if (g_children[i] == 0) {
      g_children[i] = pid;
      return;
    }
  if (count >= g_children.size()) throw PeerError(ErrorKind::internal, "too many children");
  g_children[count] = pid;
  g_child_count.store(count + 1);
}

void reap_all() {
  const std::size_t count = g_child_count.load();
  for (std::size_t i = 0; i < count; ++i)
    if (g_children[i] > 0) reap(g_children[i]);
}

void reap(pid_t pid) {
  const std::size_t count = g_child_count.load();
  for (std::size_t i = 0; i < count; ++i)
    if (g_children[i] == pid) {
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      g_children[i] = 0;
    }
}

void reap_finished() {
  for (;;) {
    const pid_t pid = ::waitpid(-1, nullptr, WNOHANG);
    if (pid <= 0) return;
    const std::size_t count = g_child_count.load();
    for (std::size_t i = 0; i < count; ++i)
      if (g_children[i] == pid) g_children[i] = 0;
  }
}

void become_child(pid_t parent) noexcept {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) _exit(0);  // the parent is already gone
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGINT, SIG_DFL);
}

void finish(Server& server) {
  (void)server;
  if (g_finishing.exchange(true)) {
    for (;;) ::pause();  // the signal handler is writing the file and will exit
  }
  stop_children();
  const bool ok = write_phases();
  if (!ok) print_line("io: cannot write the phases file " + g_path);
  exit_process(ok ? 0 : exit_code(ErrorKind::io));
}

void abandon(int code) noexcept {
  if (!g_finishing.exchange(true)) stop_children();
  exit_process(code);
}

}  // namespace ipclab::burst
