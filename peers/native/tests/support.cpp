// Test helpers (support.hpp): the protocol vectors, hex, temporary directories and files, test
// parameters, payload vectors and usage errors. Running ipclab-peer as a subprocess is in
// support_process.cpp, loopback sockets, pipes and endpoints in support_sockets.cpp.
#include "support.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "cli.hpp"
#include "error.hpp"
#include "payload.hpp"

namespace ipclab::test {

const nlohmann::json& vectors() {
  static const nlohmann::json v = [] {
    std::ifstream in(std::string(IPCLAB_VECTORS_DIR) + "/vectors.json");
    if (!in) throw std::runtime_error("cannot open vectors.json under " IPCLAB_VECTORS_DIR);
    return nlohmann::json::parse(in);
  }();
  return v;
}

std::vector<std::uint8_t> from_hex(const std::string& hex) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  return out;
}

std::string to_hex(const std::uint8_t* p, std::size_t n) {
  static const char d[] = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/ipclab-test-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

std::vector<std::string> rpc_mechanisms() {
  std::vector<std::string> names = {"grpc", "thrift-binary", "thrift-compact", "rest", "ice",
                                    "corba"};
#ifdef IPCLAB_EXPECT_SOAP
  names.push_back("soap");
#endif
  return names;
}

void expect_payload_vector(const nlohmann::json& v, const std::vector<std::uint8_t>& got) {
  if (v.contains("hex")) {
    EXPECT_EQ(to_hex(got.data(), got.size()), v.at("hex").get<std::string>());
    return;
  }
  char hex[19];
  std::snprintf(hex, sizeof hex, "0x%016llx",
                static_cast<unsigned long long>(fnv1a64(got.data(), got.size())));
  EXPECT_EQ(std::string(hex), v.at("fnv1a64").get<std::string>());
}

std::string usage_error(const std::vector<std::string>& args) {
  try {
    parse_command_line(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace ipclab::test
