// The load client run as a subprocess by the tests of pattern load (PROTOCOL.md 11.5): its
// records file read back, its result and samples beside.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"

namespace ipclab::load::load_test {

struct Row {
  std::uint64_t request, connection;
  bool measured;
  std::int64_t intended, sent, received;  // -1: empty
  std::string error;
};

inline std::vector<Row> read_records(const std::string& path) {
  std::istringstream in(test::read_file(path));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "request,connection,measured,intended_ns,sent_ns,received_ns,error");
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    if (f.size() == 6) f.emplace_back();  // an empty error
    const auto num = [](const std::string& s) { return s.empty() ? -1 : std::stoll(s); };
    rows.push_back({std::stoull(f[0]), std::stoull(f[1]), f[2] == "1", num(f[3]), num(f[4]),
                    num(f[5]), f[6]});
  }
  return rows;
}

struct LoadRun {
  test::ChildResult child;
  nlohmann::json result;
  std::vector<Row> rows;
  std::vector<std::int64_t> samples;
};

inline LoadRun drive_load(const std::string& mechanism, const std::string& endpoint,
                   const test::TempDir& dir, std::vector<std::string> extra) {
  std::vector<std::string> a = {"drive", "--pattern", "load", "--mechanism", mechanism,
                                "--endpoint", endpoint, "--samples-file", dir.file("s.bin"),
                                "--records-file", dir.file("r.csv"), "--result-file",
                                dir.file("j.json"), "--io-timeout", "10"};
  a.insert(a.end(), extra.begin(), extra.end());
  std::filesystem::remove(dir.file("r.csv"));
  LoadRun run;
  run.child = test::run_peer(a);
  run.result = nlohmann::json::parse(test::read_file(dir.file("j.json")));
  if (test::exists(dir.file("r.csv"))) run.rows = read_records(dir.file("r.csv"));
  run.samples = test::read_samples(dir.file("s.bin"));
  return run;
}

}  // namespace ipclab::load::load_test
