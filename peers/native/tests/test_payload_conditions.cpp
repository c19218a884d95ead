// Contract 6's conditions of what a client sends (section 1; 10.2): --value-range and
// --records, on the pure record generator and through every RPC framework against this peer's
// server, and --mock new-array over none (unsupported elsewhere). Their parsing is in
// test_conditions.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "payload.hpp"
#include "structs.hpp"
#include "support.hpp"

namespace ipclab {
namespace {

using test::DriveRun;
using test::Server;
using test::TempDir;

// ---- --value-range, --records ------------------------------------------------------------------

template <class F>
void each_int(const Record& r, F&& f) {
  for (std::size_t i = 0; i < r.n.size(); ++i) f("n" + std::to_string(i + 1), r.n[i]);
  for (std::size_t i = 0; i < r.li.size(); ++i)
    for (std::size_t j = 0; j < r.li[i].size(); ++j)
      f("li" + std::to_string(i + 1) + "[" + std::to_string(j) + "]", r.li[i][j]);
}

TEST(ValueRange, NonNegativeIntsAreTheLow31BitsAndTheRestIsTheSame) {
  bool any_negative = false;
  for (const PayloadKind kind : {PayloadKind::small, PayloadKind::medium, PayloadKind::large}) {
    for (const std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{42}, UINT64_MAX}) {
      SCOPED_TRACE(std::string(payload_kind_name(kind)) + " " + std::to_string(seed));
      const Record full = make_record(seed, kind, 7);
      const Record nn = make_record(seed, kind, 7, ValueRange::non_negative);
      EXPECT_EQ(make_record(seed, kind, 7, ValueRange::full), full);
      std::vector<std::int32_t> want;
      each_int(full, [&](const std::string&, std::int32_t v) {
        any_negative = any_negative || v < 0;
        want.push_back(static_cast<std::int32_t>(static_cast<std::uint32_t>(v) & 0x7FFFFFFFu));
      });
      std::size_t k = 0;
      each_int(nn, [&](const std::string& name, std::int32_t v) {
        EXPECT_GE(v, 0) << name;
        ASSERT_LT(k, want.size());
        EXPECT_EQ(v, want[k++]) << name;
      });
      EXPECT_EQ(k, want.size());
      EXPECT_EQ(nn.s, full.s);
      EXPECT_EQ(nn.b, full.b);
      EXPECT_EQ(nn.d, full.d);
      EXPECT_EQ(nn.ls, full.ls);
      EXPECT_EQ(nn.ld, full.ld);
    }
  }
  EXPECT_TRUE(any_negative);  // the full range does draw negative ints
}

// Small records drawn here field by field from one splitmix64 (10.2), independently of
// structs.cpp: record 2 must start where record 1 left the state.
std::vector<Record> small_records_by_hand(std::uint64_t seed, std::uint32_t len, int count) {
  std::uint64_t state = seed ^ (3 * kGolden);
  const auto next = [&state] {
    state += kGolden;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  const auto an_int = [&] { return static_cast<std::int32_t>(next() & 0xFFFFFFFFu); };
  std::vector<Record> out(count);
  for (Record& r : out) {
    r.n = {an_int(), an_int()};
    std::string s(4 + next() % 29, ' ');
    for (char& c : s) c = kAlphabet[next() % 62];
    r.s = {s};
    r.b = {(next() & 1) == 1};
    r.li.resize(1);
    for (std::uint32_t j = 0; j < len; ++j) r.li[0].push_back(an_int());
  }
  return out;
}

TEST(Records, PerCallContinuesTheStreamFromTodaysRecord) {
  const std::vector<Record> by_hand = small_records_by_hand(9, 4, 3);
  RecordStream stream(9, PayloadKind::small, 4);
  Record r;
  for (int k = 0; k < 3; ++k) {
    stream.next(r);  // into the same record, as the client does
    EXPECT_EQ(r, by_hand[k]) << "record " << k + 1;
  }
  for (const PayloadKind kind : {PayloadKind::small, PayloadKind::medium, PayloadKind::large}) {
    SCOPED_TRACE(payload_kind_name(kind));
    for (const ValueRange range : {ValueRange::full, ValueRange::non_negative}) {
      RecordStream reused(5, kind, 6, range), fresh(5, kind, 6, range), again(5, kind, 6, range);
      Record one, second;
      reused.next(one);
      EXPECT_EQ(one, make_record(5, kind, 6, range));  // record 1 is today's
      Record previous = one;
      for (int k = 2; k <= 6; ++k) {
        reused.next(one);
        EXPECT_NE(one, previous) << "record " << k;
        previous = one;
      }
      // A record written over equals one made new; the same seed gives the same sequence.
      for (int k = 1; k <= 6; ++k) {
        Record made;
        fresh.next(made);
        again.next(second);
        EXPECT_EQ(made, second) << "record " << k;
        if (k == 6) {
          EXPECT_EQ(made, one);
        }
      }
      if (range == ValueRange::non_negative) {
        each_int(one, [](const std::string& name, std::int32_t v) { EXPECT_GE(v, 0) << name; });
      }
    }
  }
  Record other;
  RecordStream(10, PayloadKind::small, 4).next(other);
  EXPECT_NE(other, by_hand[0]);
}

class RecordsRpc : public ::testing::TestWithParam<std::string> {};

// Per-call records and non-negative ints through every framework against this peer's server:
// the echo of each call is compared with that call's record, so a message the session converts
// into again (and keeps old fields of) fails as a payload mismatch.
TEST_P(RecordsRpc, PerCallRecordsAndNonNegativeIntsRoundTrip) {
  const std::string mech = GetParam();
  TempDir dir;
  Server server({"serve", "--mechanism", mech, "--endpoint", "127.0.0.1:0", "--seed", "3"});
  ASSERT_TRUE(server.ready());
  for (const char* kind : {"small", "medium", "large"}) {
    for (const auto& flags : std::vector<std::vector<std::string>>{
             {"--records", "per-call", "--sequence-length", "4"},
             {"--value-range", "non-negative", "--sequence-length", "4"},
             {"--records", "per-call", "--value-range", "non-negative", "--sequence-length", "0"},
             {"--records", "per-call", "--void"}}) {
      std::vector<std::string> args = {"--payload", kind, "--seed", "3", "--warmup", "3"};
      args.insert(args.end(), flags.begin(), flags.end());
      SCOPED_TRACE(std::string(kind) + " " + flags[1] + " " + flags.back());
      const DriveRun run = test::drive(mech, server.endpoint(), dir, 12, args);
      EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
      EXPECT_EQ(run.samples.size(), 12u);
    }
  }
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

INSTANTIATE_TEST_SUITE_P(Peer, RecordsRpc, ::testing::ValuesIn(test::rpc_mechanisms()),
                         test::param_name);

// ---- --mock ------------------------------------------------------------------------------------

TEST(Mock, NewArrayRunsOverNoneAndIsUnsupportedElsewhere) {
  TempDir dir;
  for (const std::uint32_t size : {0u, 1u, 1000u, 1u << 20}) {
    SCOPED_TRACE(size);
    const DriveRun run = test::drive_bytes("none", "inproc", dir, 8, size, 50,
                                           {"--mock", "new-array", "--warmup", "5"});
    EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
    EXPECT_EQ(run.result["status"], "ok");
    EXPECT_EQ(run.result["response_size"], size);
    EXPECT_EQ(run.samples.size(), 50u);
    for (const auto ns : run.samples) EXPECT_GE(ns, 0);
  }
  EXPECT_EQ(test::drive_bytes("none", "inproc", dir, 8, 8, 5, {"--mock", "copy"}).child.exit_code,
            0);
  EXPECT_EQ(test::drive_bytes("direct", "inproc", dir, 8, 8, 1,
                              {"--mock", "new-array", "--native-library", IPCLAB_NATIVE_LIBRARY})
                .child.exit_code,
            7);
  EXPECT_EQ(test::drive_bytes("tcp", "127.0.0.1:1", dir, 8, 8, 1, {"--mock", "new-array"})
                .child.exit_code,
            7);
}

}  // namespace
}  // namespace ipclab
