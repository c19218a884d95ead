#include "burst/serving.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "error.hpp"
#include "lifecycle.hpp"
#include "patterns.hpp"  // now_ns
#include "responder.hpp"  // RequestHandler

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
  const bool ok = write_phases();
  remove_created_paths();
  _exit(ok ? 0 : exit_code(ErrorKind::io));
}

RequestHandler& handler(const Server& server) {
  thread_local std::optional<RequestHandler> h;
  if (!h) h.emplace(ServerConfig{server.options.seed, false, StreamTally::Fault::none});
  return *h;
}

std::vector<std::uint8_t>& request_buffer() {
  thread_local std::vector<std::uint8_t> buf(64 * 1024);
  return buf;
}

// Reads one whole REQUEST into buf; h is its header.
ConnError receive_request(int fd, std::vector<std::uint8_t>& buf, Header& h) {
  std::size_t got = 0, need = kHeaderSize;
  while (got < need) {
    if (got == buf.size()) grow_toward(buf, need);
    const ssize_t r = ::recv(fd, buf.data() + got, buf.size() - got, 0);
    if (r == 0) return ConnError::eof;
    if (r < 0) {
      if (errno == EINTR) continue;
      return error_of_errno(errno);
    }
    got += static_cast<std::size_t>(r);
    if (need == kHeaderSize && got >= kHeaderSize) {
      h = decode_header(buf.data());
      if (const char* why = check_burst_header(h)) {
        print_line(std::string("rejected frame: ") + why);
        return ConnError::protocol;
      }
      need = kHeaderSize + h.length;
    }
  }
  return ConnError::none;
}

ConnError send_all(int fd, const std::uint8_t* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      return error_of_errno(errno);
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return ConnError::none;
}

}  // namespace

const char* check_burst_header(const Header& h) noexcept {
  if (const char* why = check_request_header(h)) return why;
  if (h.kind != static_cast<std::uint8_t>(FrameKind::request)) return "unexpected kind";
  return nullptr;
}

ConnError error_of_errno(int err) noexcept {
  return err == ECONNRESET || err == EPIPE ? ConnError::reset : ConnError::io;
}

void prepare(Server& server) {
  const std::uint64_t n = server.n;
  server.counters = static_cast<SharedCounters*>(shared_zeroed(sizeof(SharedCounters)));
  server.times = static_cast<ConnTimes*>(shared_zeroed(n * sizeof(ConnTimes)));
  server.stop_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (server.stop_fd < 0) throw_io("eventfd");
  g_server = &server;
  g_pid = ::getpid();
  g_buffer = static_cast<char*>(shared_zeroed(phases_capacity(n)));
  g_path = server.options.phases_file;
  g_tmp = g_path + ".tmp-" + std::to_string(g_pid);
  g_children.assign(n + server.workers + 1, 0);
  install_termination_handler(on_stop);
  ::signal(SIGCHLD, SIG_DFL);  // children are reaped one by one, by pid
}

Accepted accept_one(Server& server, int listen_fd, Acceptor& acceptor, int extra_flags) {
  const std::int64_t start = now_ns();
  if (acceptor.last >= 0) server.times[acceptor.last].next_accept_start = start;
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
  ConnTimes& t = server.times[index];
  t.accept_start = start;
  t.accept_end = end;
  t.worker = acceptor.worker;
  acceptor.last = static_cast<std::int64_t>(index);
  return {fd, index};
}

void serve_connection(Server& server, int fd, std::uint64_t index) {
  ConnTimes& t = server.times[index];
  std::vector<std::uint8_t>& buf = request_buffer();
  Header h{};
  t.transfer_start = now_ns();
  ConnError error = receive_request(fd, buf, h);
  if (error == ConnError::none) {
    RequestHandler& answer = handler(server);
    error = send_all(fd, answer.response(h.sequence, h.length, h.wanted), kHeaderSize + h.wanted);
    answer.after_send();
    if (error == ConnError::none) {
      t.transfer_end = now_ns();
      if (!answer.request_ok(buf.data() + kHeaderSize, h.length, h.sequence))
        error = ConnError::payload_mismatch;
    }
  }
  ::close(fd);
  t.finish(error, now_ns());
  connection_ended(server);
}

void connection_ended(Server& server) {
  if (server.counters->ended.fetch_add(1) + 1 == server.n) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t w = ::write(server.stop_fd, &one, sizeof one);
  }
}

void add_child(pid_t pid) {
  const std::size_t i = g_child_count.load();
  if (i >= g_children.size()) throw PeerError(ErrorKind::internal, "too many children");
  g_children[i] = pid;
  g_child_count.store(i + 1);
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
