// libipclab_native.so (PROTOCOL.md 4.4): ipclab_call against the vectors' payload function, its
// stamp check and per-thread cache, the exported symbols; then `drive` with the in-process
// mechanisms none and direct, run as subprocesses the way the orchestrator runs them.
#include <dlfcn.h>

#include <cstdio>
#include <thread>

#include <gtest/gtest.h>

#include "native/ipclab_native.h"
#include "payload.hpp"
#include "support.hpp"

namespace ipclab {
namespace {

using test::ChildResult;
using test::TempDir;

std::vector<std::uint8_t> call(std::uint64_t seed, std::uint64_t seq, std::size_t req_len,
                               std::size_t resp_len, int* rc) {
  const auto req = make_payload(seed, PayloadStream::request, seq, req_len);
  std::vector<std::uint8_t> resp(resp_len, 0xEE);
  *rc = ipclab_call(req.data(), req_len, resp.data(), resp_len, seed, seq);
  return resp;
}

TEST(IpclabCall, ResponsesMatchEveryResponseVector) {
  int checked = 0;
  for (const auto& v : test::vectors().at("payloads")) {
    if (v.at("stream").get<std::string>() != "response") continue;
    const auto seed = v.at("seed").get<std::uint64_t>();
    const auto seq = v.at("sequence").get<std::uint64_t>();
    const auto n = v.at("length").get<std::size_t>();
    SCOPED_TRACE("seed " + std::to_string(seed) + " seq " + std::to_string(seq) + " length " +
                 std::to_string(n));
    int rc = 1;
    const auto got = call(seed, seq, 16, n, &rc);
    EXPECT_EQ(rc, 0);
    test::expect_payload_vector(v, got);
    ++checked;
  }
  EXPECT_GE(checked, 3);
}

TEST(IpclabCall, ResponsesEqualThePayloadFunctionAcrossSizesAndSeeds) {
  // Alternating sizes and seeds exercise the per-thread cache of the last response base.
  for (int round = 0; round < 2; ++round)
    for (std::uint64_t seed : {1ull, 9ull, 0xFFFFFFFFFFFFFFFFull})
      for (std::size_t n : {0u, 1u, 7u, 8u, 9u, 16u, 1000u, 1u << 20, (1u << 20) + 1})
        for (std::uint64_t seq : {0ull, 1ull, 0x0102030405060708ull}) {
          int rc = 1;
          const auto got = call(seed, seq, n, n, &rc);
          EXPECT_EQ(rc, 0);
          EXPECT_TRUE(got == make_payload(seed, PayloadStream::response, seq, n))
              << "seed " << seed << " n " << n << " seq " << seq;
        }
}

TEST(IpclabCall, ChecksTheRequestStampOnly) {
  const std::uint64_t seed = 5, seq = 77;
  for (std::size_t n : {1u, 3u, 8u, 9u, 100u}) {
    auto req = make_payload(seed, PayloadStream::request, seq, n);
    std::vector<std::uint8_t> resp(4);
    EXPECT_EQ(ipclab_call(req.data(), n, resp.data(), resp.size(), seed, seq), 0) << n;
    // Wrong sequence, wrong seed.
    EXPECT_EQ(ipclab_call(req.data(), n, resp.data(), resp.size(), seed, seq + 1), -1) << n;
    EXPECT_EQ(ipclab_call(req.data(), n, resp.data(), resp.size(), seed + 1, seq), -1) << n;
    // Each stamped byte matters; bytes past the first 8 are not checked.
    for (std::size_t j = 0; j < n && j < 9; ++j) {
      req[j] ^= 0x40;
      EXPECT_EQ(ipclab_call(req.data(), n, resp.data(), resp.size(), seed, seq), j < 8 ? -1 : 0)
          << n << " byte " << j;
      req[j] ^= 0x40;
    }
  }
  // An empty request has no stamp: always accepted (and never read).
  std::vector<std::uint8_t> resp(16);
  EXPECT_EQ(ipclab_call(nullptr, 0, resp.data(), resp.size(), seed, seq), 0);
  EXPECT_TRUE(resp == make_payload(seed, PayloadStream::response, seq, 16));
  // An empty response is never written.
  const auto req = make_payload(seed, PayloadStream::request, seq, 16);
  EXPECT_EQ(ipclab_call(req.data(), 16, nullptr, 0, seed, seq), 0);
}

TEST(IpclabCall, EachThreadKeepsItsOwnCache) {
  auto worker = [](std::uint64_t seed, std::size_t n, int* bad) {
    for (std::uint64_t seq = 0; seq < 2000; ++seq) {
      int rc = 1;
      const auto got = call(seed, seq, 8, n, &rc);
      if (rc != 0 || got != make_payload(seed, PayloadStream::response, seq, n)) ++*bad;
    }
  };
  int bad1 = 0, bad2 = 0;
  std::thread a(worker, 1, 100, &bad1), b(worker, 2, 101, &bad2);
  a.join();
  b.join();
  EXPECT_EQ(bad1, 0);
  EXPECT_EQ(bad2, 0);
}

TEST(NativeLibrary, ExportsOnlyTheContractSymbols) {
  void* lib = ::dlopen(IPCLAB_NATIVE_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << ::dlerror();
  EXPECT_NE(::dlsym(lib, "ipclab_call"), nullptr);
#ifdef IPCLAB_EXPECT_JNI
  EXPECT_NE(::dlsym(lib, "Java_dev_ipclab_peer_NativeCall_call"), nullptr);
#endif
  // The payload code inside is hidden (no clash with a host's own copy).
  EXPECT_EQ(::dlsym(lib, "_ZN6ipclab9fill_baseEmNS_13PayloadStreamEPhm"), nullptr);
  ::dlclose(lib);
}

// ---- none and direct, as subprocesses -------------------------------------------------------

using InprocRun = test::DriveRun;

InprocRun drive_inproc(const std::string& mech, const TempDir& dir, std::uint32_t req, std::uint32_t resp,
                std::uint64_t iterations, const std::vector<std::string>& extra) {
  return test::drive_bytes(mech, "inproc", dir, req, resp, iterations, extra);
}

class Inproc : public ::testing::TestWithParam<std::string> {};

TEST_P(Inproc, RoundTripsEverySize) {
  const std::string mech = GetParam();
  TempDir dir;
  const std::vector<std::string> lib = {"--native-library", IPCLAB_NATIVE_LIBRARY};
  for (std::uint32_t size : {0u, 16u, 1u << 20, (1u << 20) + 1, 16u << 20}) {
    const std::uint64_t iterations = size >= (16u << 20) ? 3 : 50;
    auto extra = lib;
    for (const char* s : {"--warmup", "2", "--seed", "9"}) extra.push_back(s);
    const InprocRun run = drive_inproc(mech, dir, size, size, iterations, extra);
    EXPECT_EQ(run.child.exit_code, 0) << size << ": " << run.child.err;
    EXPECT_EQ(run.child.err, "");
    EXPECT_EQ(run.result["status"], "ok");
    EXPECT_EQ(run.result["mechanism"], mech);
    EXPECT_EQ(run.result["samples"], iterations);
    EXPECT_EQ(run.samples.size(), iterations);
    for (auto s : run.samples) EXPECT_GE(s, 0);
  }
  // Asymmetric sizes.
  const InprocRun run = drive_inproc(mech, dir, 0, 1000, 5, lib);
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  const InprocRun run2 = drive_inproc(mech, dir, 1000, 0, 5, lib);
  EXPECT_EQ(run2.child.exit_code, 0) << run2.child.err;
}

TEST_P(Inproc, HasNoServerAndTakesOnlyInproc) {
  const std::string mech = GetParam();
  TempDir dir;
  const ChildResult serve =
      test::run_peer({"serve", "--mechanism", mech, "--endpoint", "inproc"});
  EXPECT_EQ(serve.exit_code, 7) << serve.err;
  EXPECT_NE(serve.err.find("unsupported"), std::string::npos) << serve.err;
  std::vector<std::string> args = {"drive", "--mechanism", mech, "--endpoint", "auto",
                                   "--request-size", "1", "--response-size", "1",
                                   "--iterations", "1", "--native-library", IPCLAB_NATIVE_LIBRARY,
                                   "--samples-file", dir.file("s"), "--result-file",
                                   dir.file("r")};
  const ChildResult bad = test::run_peer(args);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

INSTANTIATE_TEST_SUITE_P(Peer, Inproc, ::testing::Values("none", "direct"));

TEST(Direct, NeedsTheLibrary) {
  TempDir dir;
  std::vector<std::string> args = {"drive", "--mechanism", "direct", "--endpoint", "inproc",
                                   "--request-size", "1", "--response-size", "1",
                                   "--iterations", "1", "--samples-file", dir.file("s"),
                                   "--result-file", dir.file("r")};
  const ChildResult missing_flag = test::run_peer(args);
  EXPECT_EQ(missing_flag.exit_code, 2) << missing_flag.err;
  args.push_back("--native-library");
  args.push_back(dir.file("no-such-library.so"));
  const ChildResult missing_file = test::run_peer(args);
  EXPECT_EQ(missing_file.exit_code, 5) << missing_file.err;
  EXPECT_EQ(nlohmann::json::parse(test::read_file(dir.file("r")))["error_kind"], "io");
}

TEST(None, NeedsNoLibrary) {
  TempDir dir;
  const InprocRun run = drive_inproc("none", dir, 16, 16, 10, {});
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.samples.size(), 10u);
}

}  // namespace
}  // namespace ipclab
