// What the suites of the message channels (sysv-mq, posix-mq, sysv-shm), POSIX shared memory
// (shm, shm-spin, shm-futex) and the file mechanisms (file, file-poll) share (test_messages.cpp,
// test_message_channels.cpp, test_posix_shm.cpp, test_file_mechanisms.cpp): the kernel objects
// a READY endpoint names, listed and removed; a server of each in a fresh directory whose
// objects are removed after it, a client's run against it, and a server killed before the test.
#pragma once

#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "endpoint.hpp"
#include "support.hpp"

namespace ipclab::message_test {

using test::DriveRun;
using test::Server;
using test::TempDir;

// ---- kernel objects -------------------------------------------------------------------------

inline bool is_posix_shm(const std::string& mech) {
  return mech == "shm" || mech == "shm-spin" || mech == "shm-futex";
}

inline bool is_message_mechanism(const std::string& mech) {
  return mech == "sysv-mq" || mech == "posix-mq" || mech == "sysv-shm" || is_posix_shm(mech);
}

// Whether /proc/sysvipc/<table> (msg, shm, sem) lists an object with this key.
inline bool sysv_key_listed(const std::string& table, int key) {
  std::ifstream in("/proc/sysvipc/" + table);
  std::string line;
  std::getline(in, line);  // column titles
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    long long k = 0;
    if ((fields >> k) && static_cast<int>(k) == key) return true;
  }
  return false;
}

inline bool posix_queue_exists(const std::string& name) {
  const mqd_t q = ::mq_open(name.c_str(), O_RDONLY);
  if (q != static_cast<mqd_t>(-1)) {
    ::mq_close(q);
    return true;
  }
  EXPECT_EQ(errno, ENOENT) << name;
  return false;
}

// Everything a READY endpoint names still exists (true) or none of it does (false).
struct Objects {
  int msg = 0, shm = 0, sem = 0, queues = 0, posix_shm = 0;
  int total() const { return msg + shm + sem + queues + posix_shm; }
};
inline Objects objects_of(const std::string& mech, const std::string& endpoint) {
  Objects o;
  if (endpoint.rfind("sysv:", 0) == 0) {
    const int key = parse_sysv_key(endpoint).key;
    o.msg = sysv_key_listed("msg", key);
    o.shm = sysv_key_listed("shm", key);
    o.sem = sysv_key_listed("sem", key);
  } else if (mech == "posix-mq") {
    const std::string prefix = parse_posix_name(endpoint).prefix;
    o.queues = posix_queue_exists(prefix + "-1") + posix_queue_exists(prefix + "-2");
  } else if (is_posix_shm(mech)) {
    o.posix_shm = test::exists("/dev/shm" + parse_posix_name(endpoint).prefix + "-shm");
  }
  return o;
}

// Removes what a READY endpoint names, as the orchestrator does after a crash. Used by tests
// (a dead server) and by IpcGuard (a failing test must not leave objects behind).
inline void remove_objects(const std::string& endpoint) {
  if (endpoint.rfind("sysv:", 0) == 0) {
    const int key = parse_sysv_key(endpoint).key;
    if (const int id = ::msgget(key, 0); id >= 0) ::msgctl(id, IPC_RMID, nullptr);
    if (const int id = ::shmget(key, 0, 0); id >= 0) ::shmctl(id, IPC_RMID, nullptr);
    if (const int id = ::semget(key, 0, 0); id >= 0) ::semctl(id, 0, IPC_RMID);
  } else if (endpoint.rfind("posix:", 0) == 0) {
    const std::string prefix = parse_posix_name(endpoint).prefix;
    ::mq_unlink((prefix + "-1").c_str());
    ::mq_unlink((prefix + "-2").c_str());
    ::shm_unlink((prefix + "-shm").c_str());
  }
}

// Declared before the Server: destroyed after it, it resumes a stopped server (so that the
// Server's destructor can end it) and removes whatever the server left.
struct IpcGuard {
  std::string endpoint;
  ~IpcGuard() {
    if (!endpoint.empty()) remove_objects(endpoint);
  }
};
struct Resume {  // declared after the Server: SIGCONT before the Server's destructor runs
  pid_t pid = -1;
  ~Resume() {
    if (pid > 0) ::kill(pid, SIGCONT);
  }
};

// ---- subprocess helpers ---------------------------------------------------------------------

inline DriveRun drive(const std::string& mech, const std::string& endpoint, const TempDir& dir,
                      std::uint32_t request, std::uint32_t response, std::uint64_t iterations,
                      const std::vector<std::string>& extra = {}) {
  return test::drive_bytes(mech, endpoint, dir, request, response, iterations, extra);
}

// The server's directory for file mechanisms lives inside the test's TempDir (the client's
// result files stay outside it, so that only frames appear there).
inline std::string serve_endpoint(const std::string& mech, const TempDir& dir) {
  if (is_message_mechanism(mech)) return "auto";
  const std::string d = dir.file("frames");
  ::mkdir(d.c_str(), 0700);
  return d;
}

inline std::vector<std::string> serve_args(const std::string& mech, const TempDir& dir,
                                           const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"serve", "--mechanism", mech, "--endpoint",
                                   serve_endpoint(mech, dir)};
  if (mech == "file-poll") {
    args.push_back("--poll-interval-us");
    args.push_back("200");
  }
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

inline std::vector<std::string> client_extra(const std::string& mech) {
  if (mech == "file-poll") return {"--poll-interval-us", "200"};
  return {};
}

// A server of mech in a fresh directory; whatever the test does, the kernel objects its READY
// named are removed after it ends (members are destroyed server first, then guard, then dir).
struct Served {
  explicit Served(const std::string& mech, const std::vector<std::string>& extra = {})
      : server(serve_args(mech, dir, extra)) {
    if (server.ready()) guard.endpoint = server.endpoint();
  }
  TempDir dir;
  IpcGuard guard;
  Server server;
};

inline bool directory_empty(const std::string& d) {
  return std::filesystem::is_empty(d);
}

// A server killed (SIGKILL) before the test: nothing it created was removed.
class DeadServer : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(served.server.ready());
    served.server.signal(SIGKILL);
    served.server.wait();
  }
  const std::string mech = GetParam();
  Served served{mech};
  const std::string ep = served.server.ready() ? served.server.endpoint() : "";
};

}  // namespace ipclab::message_test
