// Process lifecycle: signals, the stdin-EOF watcher, and the files a server must remove when it
// stops (PROTOCOL.md section 5). Cleanup runs in a signal handler, so it only uses
// async-signal-safe calls (unlink, _exit).
#pragma once

#include <csignal>
#include <string>

namespace ipclab {

// Blocks SIGTERM and SIGINT for the calling thread while alive. A server creates a file and
// registers it inside one of these, so a signal never finds it created but unregistered.
class SignalBlock {
 public:
  SignalBlock() noexcept;
  ~SignalBlock();
  SignalBlock(const SignalBlock&) = delete;
  SignalBlock& operator=(const SignalBlock&) = delete;

 private:
  sigset_t old_;
};

// Records a path to unlink on shutdown (at most a few; longer paths are refused with false).
bool register_created_path(const std::string& path) noexcept;
// Kernel objects to remove on shutdown: System V ids (IPC_RMID) and POSIX queue names.
enum class CreatedKind { path, sysv_msg, sysv_shm, sysv_sem, posix_mq, posix_shm };
bool register_created(CreatedKind kind, const std::string& name, int id = -1) noexcept;
// Load over posix-mq (11.5.5): the reply queues <prefix>-r<c> (c < 1024) this process made
// (a client) or opened (a server), too many for the list above: one prefix per process, set
// before any is registered, and a bit per queue.
void set_reply_queue_prefix(const std::string& prefix) noexcept;
void register_reply_queue(unsigned c) noexcept;
void forget_reply_queue(unsigned c) noexcept;
// Removes every registered path and object and forgets it. Async-signal-safe (only unlink,
// mq_unlink, shm_unlink (an unlink under /dev/shm), msgctl, shmctl, semctl: plain system calls).
void remove_created_paths() noexcept;

// Server setup: ignores SIGPIPE, makes SIGTERM/SIGINT and end of file on stdin remove the
// created paths and _exit(0). Call once, before creating anything.
void install_server_lifecycle();

// Makes SIGTERM and SIGINT run `handler`, with both blocked while it runs (no SA_RESTART). The
// server lifecycle installs its own with it; a burst server replaces that with one that first
// writes its phases file.
void install_termination_handler(void (*handler)(int));

// Client setup: ignores SIGPIPE; SIGTERM and SIGINT remove what the client registered (its
// uds-dgram socket path) and then end it as the signal would.
void install_client_lifecycle();

[[noreturn]] void exit_process(int code) noexcept;  // remove_created_paths(), then _exit

// Whether the server is on its way out (a stop signal, stdin's end): a thread that another
// thread's removal of the kernel objects woke (EIDRM) must not report that as its failure.
bool stopping() noexcept;

}  // namespace ipclab
