// Test helpers (support.hpp): running ipclab-peer as a subprocess the way the orchestrator does
// (stdin pipe held open, READY read from stdout; a drive run to completion, its result file and
// samples read back).
#include "support.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <stdexcept>

namespace ipclab::test {

// Tests write to peers that may close early; a broken pipe must be an error code, not a signal.
static const bool g_sigpipe_ignored = [] {
  ::signal(SIGPIPE, SIG_IGN);
  return true;
}();

namespace {

std::int64_t now_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// fork + exec of the peer. In the child: stdin/stdout/stderr as given (-1: /dev/null), every
// other descriptor closed except keep_fds.
pid_t spawn(const std::vector<std::string>& args, int in_fd, int out_fd, int err_fd,
            const std::vector<int>& keep_fds) {
  std::vector<std::string> argv_store;
  argv_store.push_back(IPCLAB_PEER_EXE);
  for (const auto& a : args) argv_store.push_back(a);
  std::vector<char*> argv;
  for (auto& a : argv_store) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_RDWR);
    ::dup2(in_fd >= 0 ? in_fd : devnull, 0);
    ::dup2(out_fd >= 0 ? out_fd : devnull, 1);
    ::dup2(err_fd >= 0 ? err_fd : devnull, 2);
    for (int fd = 3; fd < 1024; ++fd) {
      bool keep = false;
      for (int k : keep_fds) keep = keep || k == fd;
      if (keep) {
        ::fcntl(fd, F_SETFD, 0);  // survive exec
      } else {
        ::close(fd);
      }
    }
    ::execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

std::string drain(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return out;
  }
}

ChildResult wait_for(pid_t pid, int timeout_ms) {
  const std::int64_t deadline = now_ms() + timeout_ms;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (now_ms() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      ChildResult res;
      res.exit_code = -2;  // timed out
      return res;
    }
    ::usleep(2000);  // test harness polling, not peer synchronisation
  }
  ChildResult res;
  res.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return res;
}

}  // namespace

Server::Server(const std::vector<std::string>& args, const std::vector<int>& keep_fds) {
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  pid_ = spawn(args, in[0], out[1], err[1], keep_fds);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  stdin_w_ = in[1];
  stderr_r_ = err[0];
  // Read one line (READY) or until the stream ends (the server failed).
  std::string line;
  char c;
  pollfd p{out[0], POLLIN, 0};
  while (::poll(&p, 1, 10000) > 0) {
    const ssize_t n = ::read(out[0], &c, 1);
    if (n <= 0) break;
    if (c == '\n') break;
    line += c;
  }
  ::close(out[0]);
  if (line.rfind("READY ", 0) == 0) ready_ = nlohmann::json::parse(line.substr(6));
}

Server::~Server() {
  if (!result_) {
    close_stdin();
    wait(5000);
  }
  if (stderr_r_ >= 0) ::close(stderr_r_);
}

void Server::close_stdin() {
  if (stdin_w_ >= 0) ::close(stdin_w_);
  stdin_w_ = -1;
}

void Server::signal(int sig) { ::kill(pid_, sig); }

ChildResult Server::wait(int timeout_ms) {
  if (result_) return *result_;
  ChildResult r = wait_for(pid_, timeout_ms);
  // The stdin watcher (a child of the server) holds stderr too; it dies with the server.
  r.err = drain(stderr_r_);
  result_ = r;
  close_stdin();
  return r;
}

ChildResult run_peer(const std::vector<std::string>& args, const std::vector<int>& keep_fds,
                     int timeout_ms) {
  int err[2];
  if (::pipe2(err, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = spawn(args, -1, -1, err[1], keep_fds);
  ::close(err[1]);
  // Read stderr while waiting (a long message must not block the child).
  std::string text;
  const std::int64_t deadline = now_ms() + timeout_ms;
  pollfd p{err[0], POLLIN, 0};
  for (;;) {
    const int left = static_cast<int>(deadline - now_ms());
    if (left <= 0 || ::poll(&p, 1, left) <= 0) break;
    char buf[4096];
    const ssize_t n = ::read(err[0], buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(err[0]);
  ChildResult r = wait_for(pid, static_cast<int>(std::max<std::int64_t>(deadline - now_ms(), 1000)));
  r.err = text;
  return r;
}

std::string peer_stdout(const std::vector<std::string>& args, int* exit_code) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = spawn(args, -1, out[1], -1, {});
  ::close(out[1]);
  const std::string text = drain(out[0]);
  ::close(out[0]);
  *exit_code = wait_for(pid, 20000).exit_code;
  return text;
}

std::vector<std::int64_t> read_samples(const std::string& path) {
  const std::string bytes = read_file(path);
  std::vector<std::int64_t> out(bytes.size() / 8);
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::uint64_t v = 0;
    for (int b = 0; b < 8; ++b)
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i * 8 + b])) << (8 * b);
    out[i] = static_cast<std::int64_t>(v);
  }
  return out;
}

DriveRun drive(const std::string& mech, const std::string& endpoint, const TempDir& dir,
               std::uint64_t iterations, const std::vector<std::string>& extra,
               const std::vector<int>& keep_fds, int timeout_ms) {
  std::vector<std::string> args = {"drive", "--mechanism", mech, "--endpoint", endpoint,
                                   "--iterations", std::to_string(iterations),
                                   "--samples-file", dir.file("samples.bin"),
                                   "--result-file", dir.file("result.json")};
  args.insert(args.end(), extra.begin(), extra.end());
  ::unlink(dir.file("result.json").c_str());
  DriveRun run;
  run.child = run_peer(args, keep_fds, timeout_ms);
  if (exists(dir.file("result.json")))
    run.result = nlohmann::json::parse(read_file(dir.file("result.json")));
  run.samples = read_samples(dir.file("samples.bin"));
  return run;
}

DriveRun drive_bytes(const std::string& mech, const std::string& endpoint, const TempDir& dir,
                     std::uint32_t request, std::uint32_t response, std::uint64_t iterations,
                     const std::vector<std::string>& extra, const std::vector<int>& keep_fds) {
  std::vector<std::string> args = {"--request-size", std::to_string(request), "--response-size",
                                   std::to_string(response)};
  args.insert(args.end(), extra.begin(), extra.end());
  return drive(mech, endpoint, dir, iterations, args, keep_fds);
}

}  // namespace ipclab::test
