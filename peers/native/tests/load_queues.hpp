// Helpers of the tests of load over a message queue (PROTOCOL.md 11.5.5): a queue load server
// and a load client as subprocesses, the records file read back, and the queues a server leaves.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "load_runs.hpp"
#include "support.hpp"

namespace ipclab::load::queue_test {

using namespace load_test;

inline test::Server queue_server(const std::string& mechanism, const std::string& model,
                          std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"serve", "--pattern", "load", "--mechanism", mechanism,
                                "--endpoint", "auto", "--server-model", model};
  a.insert(a.end(), extra.begin(), extra.end());
  return test::Server(a);
}

// The sysv keys of "sysv:0x1c1a1234,0x1c1a9234".
inline std::vector<int> keys_of(const std::string& endpoint) {
  std::vector<int> keys;
  std::istringstream in(endpoint.substr(5));
  for (std::string k; std::getline(in, k, ',');)
    keys.push_back(static_cast<int>(std::stoul(k, nullptr, 16)));
  return keys;
}

// Queues named /ipclab-<pid>-* (the server's and its clients' reply queues).
inline std::vector<std::string> posix_queues_of(pid_t pid) {
  std::vector<std::string> names;
  const std::string prefix = "ipclab-" + std::to_string(pid) + "-";
  for (const auto& e : std::filesystem::directory_iterator("/dev/mqueue"))
    if (e.path().filename().string().rfind(prefix, 0) == 0)
      names.push_back(e.path().filename().string());
  return names;
}

// What is left of a stopped server's queues (none, if it cleaned up): /proc/sysvipc/msg's rows
// with its keys, or its names in /dev/mqueue.
inline std::size_t left_behind(const std::string& mechanism, const std::string& endpoint,
                               pid_t pid) {
  if (mechanism == "posix-mq") return posix_queues_of(pid).size();
  std::istringstream in(test::read_file("/proc/sysvipc/msg"));
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);)
    for (const int key : keys_of(endpoint)) n += std::atol(line.c_str()) == key ? 1 : 0;
  return n;
}

// The parameter: MECHANISM-MODEL (sysv-mq-iterative, posix-mq-thread-pool).
class QueueLoad : public ::testing::TestWithParam<std::string> {
 protected:
  std::string mechanism() const { return GetParam().substr(0, GetParam().find("-mq") + 3); }
  std::string model() const { return GetParam().substr(GetParam().find("-mq") + 4); }
};

}  // namespace ipclab::load::queue_test
