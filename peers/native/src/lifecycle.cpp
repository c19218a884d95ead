#include "lifecycle.hpp"

#include <mqueue.h>
#include <pthread.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>

#include "error.hpp"

namespace ipclab {

namespace {

constexpr int kMaxPaths = 8;
struct Created {
  CreatedKind kind;
  int id;
  char path[PATH_MAX];
};
Created g_created[kMaxPaths];
volatile sig_atomic_t g_path_count = 0;

// The reply queues of load over posix-mq: "<prefix>-r" and one bit per connection number.
constexpr unsigned kReplyQueues = 1024;
char g_reply_prefix[NAME_MAX + 1];
std::atomic<std::uint64_t> g_reply_queues[kReplyQueues / 64];

// Unlinks the registered reply queues. Async-signal-safe: lock-free atomics, mq_unlink.
void remove_reply_queues() noexcept {
  char name[sizeof g_reply_prefix + 8];
  const std::size_t prefix = std::strlen(g_reply_prefix);
  std::memcpy(name, g_reply_prefix, prefix);
  for (unsigned word = 0; word < kReplyQueues / 64; ++word) {
    std::uint64_t bits = g_reply_queues[word].exchange(0);
    for (; bits != 0; bits &= bits - 1) {
      unsigned c = word * 64 + static_cast<unsigned>(__builtin_ctzll(bits));
      char digits[8];
      int n = 0;
      do digits[n++] = static_cast<char>('0' + c % 10); while ((c /= 10) != 0);
      std::size_t at = prefix;
      while (n > 0) name[at++] = digits[--n];
      name[at] = '\0';
      ::mq_unlink(name);
    }
  }
}

std::atomic<bool> g_stopping{false};

void on_terminate(int) {
  g_stopping.store(true);
  remove_created_paths();
  _exit(0);
}

void block_termination(sigset_t* old) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, old);
}

// The stdin watcher is a small child process, not a thread: a second thread would share the
// server's file table, and then every read/write pays atomic reference counting on the file
// (measured: about 5% of a same-core pipe round trip). The child keeps only stdin and stderr,
// dies with the server (PR_SET_PDEATHSIG), and at end of file sends the server SIGTERM, so the
// server's own handler removes its files.
void start_stdin_watcher() {
  const pid_t server = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw_io("fork (stdin watcher)");
  if (pid > 0) return;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != server) _exit(0);  // the server is already gone
  ::close_range(3, ~0U, 0);
  // Default dispositions: a signal to the process group ends the watcher too.
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGINT, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  char buf[256];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n > 0) continue;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EBADF) _exit(0);  // no stdin at all: nothing to watch
    if (::getppid() == server) ::kill(server, SIGTERM);
    _exit(0);
  }
}

}  // namespace

SignalBlock::SignalBlock() noexcept { block_termination(&old_); }
SignalBlock::~SignalBlock() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

bool register_created_path(const std::string& path) noexcept {
  return register_created(CreatedKind::path, path);
}

bool register_created(CreatedKind kind, const std::string& name, int id) noexcept {
  if (g_path_count >= kMaxPaths || name.size() >= PATH_MAX) return false;
  Created& c = g_created[g_path_count];
  c.kind = kind;
  c.id = id;
  std::memcpy(c.path, name.c_str(), name.size() + 1);
  g_path_count = g_path_count + 1;
  return true;
}

void set_reply_queue_prefix(const std::string& prefix) noexcept {
  const std::string name = prefix + "-r";
  if (name.size() < sizeof g_reply_prefix)
    std::memcpy(g_reply_prefix, name.c_str(), name.size() + 1);
}

void register_reply_queue(unsigned c) noexcept {
  if (c < kReplyQueues) g_reply_queues[c / 64].fetch_or(std::uint64_t{1} << (c % 64));
}

void forget_reply_queue(unsigned c) noexcept {
  if (c < kReplyQueues) g_reply_queues[c / 64].fetch_and(~(std::uint64_t{1} << (c % 64)));
}

void remove_created_paths() noexcept {
  if (g_reply_prefix[0] != '\0') remove_reply_queues();
  while (g_path_count > 0) {
    g_path_count = g_path_count - 1;
    const Created& c = g_created[g_path_count];
    switch (c.kind) {
      case CreatedKind::path: ::unlink(c.path); break;
      case CreatedKind::posix_mq: ::mq_unlink(c.path); break;
      case CreatedKind::posix_shm: ::shm_unlink(c.path); break;
      case CreatedKind::sysv_msg: ::msgctl(c.id, IPC_RMID, nullptr); break;
      case CreatedKind::sysv_shm: ::shmctl(c.id, IPC_RMID, nullptr); break;
      case CreatedKind::sysv_sem: ::semctl(c.id, 0, IPC_RMID); break;
    }
  }
}

void on_client_terminate(int sig) {
  remove_created_paths();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_client_lifecycle() {
  ::signal(SIGPIPE, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = on_client_terminate;
  sa.sa_flags = SA_RESTART;  // a receive is never interrupted by it: it does not return
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

void install_server_lifecycle() {
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGCHLD, SIG_IGN);  // the watcher is reaped automatically
  sigset_t old;
  block_termination(&old);  // an early SIGTERM waits until the handler is installed
  start_stdin_watcher();
  install_termination_handler(on_terminate);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void install_termination_handler(void (*handler)(int)) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

bool stopping() noexcept { return g_stopping.load(); }

void exit_process(int code) noexcept {
  remove_created_paths();
  _exit(code);
}

}  // namespace ipclab
