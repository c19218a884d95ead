// Test helpers: the protocol vectors, hex, temporary directories, and running ipclab-peer as a
// subprocess the way the orchestrator does (stdin pipe held open, READY read from stdout).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ipclab::test {

const nlohmann::json& vectors();  // protocol/vectors/vectors.json
std::vector<std::uint8_t> from_hex(const std::string& hex);
std::string to_hex(const std::uint8_t* p, std::size_t n);

// A fresh mode-0700 directory, removed (with its files) when destroyed.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string read_file(const std::string& path);
bool exists(const std::string& path);

struct ChildResult {
  int exit_code = -1;  // -1: killed by a signal
  std::string err;     // its stderr
};

// A `serve` process. stdin is a pipe this object holds; stdout is read for READY.
class Server {
 public:
  // extra_fds: descriptors the child must keep (pipe mechanism); all other inherited
  // descriptors beyond stderr are closed in the child.
  Server(const std::vector<std::string>& args, const std::vector<int>& keep_fds = {});
  ~Server();
  bool ready() const { return ready_.has_value(); }
  const nlohmann::json& ready_json() const { return *ready_; }
  std::string endpoint() const { return (*ready_)["endpoint"].get<std::string>(); }
  pid_t pid() const { return pid_; }
  void close_stdin();
  void signal(int sig);
  // Waits up to timeout_ms for the process to exit; kills it if it does not.
  ChildResult wait(int timeout_ms = 5000);

 private:
  pid_t pid_ = -1;
  int stdin_w_ = -1;
  int stderr_r_ = -1;
  std::optional<nlohmann::json> ready_;
  std::optional<ChildResult> result_;
};

// Runs ipclab-peer with args to completion (stdin /dev/null), keeping only keep_fds.
ChildResult run_peer(const std::vector<std::string>& args, const std::vector<int>& keep_fds = {},
                     int timeout_ms = 20000);

std::vector<std::int64_t> read_samples(const std::string& path);

}  // namespace ipclab::test
