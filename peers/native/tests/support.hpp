// Test helpers: the protocol vectors, hex, temporary directories (support.cpp), running
// ipclab-peer as a subprocess the way the orchestrator does (stdin pipe held open, READY read
// from stdout; support_process.cpp), and loopback sockets, pipes and endpoints
// (support_sockets.cpp).
#pragma once

#include <sys/types.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ipclab::test {

const nlohmann::json& vectors();  // protocol/vectors/vectors.json
std::vector<std::uint8_t> from_hex(const std::string& hex);
std::string to_hex(const std::uint8_t* p, std::size_t n);
// What the peer's parse_command_line refuses `args` with ("" when it accepts them).
std::string usage_error(const std::vector<std::string>& args);

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

// Runs ipclab-peer with args to completion and returns what it wrote to stdout (capabilities).
std::string peer_stdout(const std::vector<std::string>& args, int* exit_code);

std::vector<std::int64_t> read_samples(const std::string& path);

// A `drive` run to completion: its exit, its result file and its samples.
struct DriveRun {
  ChildResult child;
  nlohmann::json result;
  std::vector<std::int64_t> samples;
};

// Runs `drive --mechanism mech --endpoint endpoint --iterations n` with the samples and result
// files in dir (samples.bin, result.json; a stale result is removed first), then extra.
DriveRun drive(const std::string& mech, const std::string& endpoint, const TempDir& dir,
               std::uint64_t iterations, const std::vector<std::string>& extra = {},
               const std::vector<int>& keep_fds = {}, int timeout_ms = 60000);
// The same with --request-size and --response-size (a bytes payload).
DriveRun drive_bytes(const std::string& mech, const std::string& endpoint, const TempDir& dir,
                     std::uint32_t request, std::uint32_t response, std::uint64_t iterations,
                     const std::vector<std::string>& extra = {},
                     const std::vector<int>& keep_fds = {});

// A test name from a mechanism parameter ("sysv-mq" -> "sysv_mq").
std::string param_name(const ::testing::TestParamInfo<std::string>& info);

// The RPC mechanisms (section 10) this build serves and drives: soap only where gSOAP was built in
// (IPCLAB_EXPECT_SOAP, cmake/tests.cmake).
std::vector<std::string> rpc_mechanisms();

// The distinct client ports of the TCP sockets to or from 127.0.0.1:port in /proc/net/tcp
// (TIME_WAIT included; either side may hold it, or both). The port came from the ephemeral range,
// so an older connection that used it as its own client port may still be in TIME_WAIT: callers
// take the difference from a snapshot made before their connections.
std::set<unsigned> connections_with(const std::string& endpoint);
// How many ports of after are not in before.
std::size_t new_connections(const std::set<unsigned>& before,
                            const std::set<unsigned>& after);

// A loopback socket of this type (SOCK_STREAM, SOCK_DGRAM) bound to 127.0.0.1 on a port the
// kernel chose, and that endpoint ("127.0.0.1:PORT").
struct Loopback {
  int fd = -1;
  std::string endpoint;
};
Loopback bind_loopback(int type);
// A socket of this type connected to "127.0.0.1:PORT".
int connect_loopback(int type, const std::string& endpoint);

// The orchestrator's two anonymous pipes for the pipe mechanism.
struct Pipes {
  int req[2];
  int resp[2];
  Pipes();
  ~Pipes() { close_all(); }
  std::string server_endpoint() const;
  std::string client_endpoint() const;
  std::vector<int> server_fds() const { return {req[0], resp[1]}; }
  std::vector<int> client_fds() const { return {resp[0], req[1]}; }
  void close_all();
};

// A server endpoint for any frame mechanism, inside dir (file: its "frames" directory, made
// here; message channels and shared memory: auto).
std::string server_endpoint(const std::string& mech, const TempDir& dir, const Pipes& pipes);

// Checks bytes against a payload vector: its hex, or its FNV-1a 64 for large ones.
void expect_payload_vector(const nlohmann::json& vector, const std::vector<std::uint8_t>& bytes);

}  // namespace ipclab::test
