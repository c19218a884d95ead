// Payload generation against every vector in protocol/vectors/vectors.json (section 3).
#include <gtest/gtest.h>

#include "payload.hpp"
#include "support.hpp"

namespace ipclab {
namespace {

PayloadStream stream_of(const std::string& name) {
  return name == "request" ? PayloadStream::request : PayloadStream::response;
}

TEST(Payload, MatchesEveryVector) {
  const auto& list = test::vectors().at("payloads");
  ASSERT_GE(list.size(), 10u);
  for (const auto& v : list) {
    const auto seed = v.at("seed").get<std::uint64_t>();
    const auto seq = v.at("sequence").get<std::uint64_t>();
    const auto n = v.at("length").get<std::size_t>();
    const auto stream = stream_of(v.at("stream").get<std::string>());
    SCOPED_TRACE("seed " + std::to_string(seed) + " " + v.at("stream").get<std::string>() +
                 " seq " + std::to_string(seq) + " length " + std::to_string(n));
    const std::vector<std::uint8_t> got = make_payload(seed, stream, seq, n);
    ASSERT_EQ(got.size(), n);
    test::expect_payload_vector(v, got);
  }
}

TEST(Payload, StampFromCachedBaseEqualsFullPayload) {
  // The peers' fast path: base once, then stamp the first 8 bytes per frame.
  for (std::size_t n : {0u, 1u, 7u, 8u, 9u, 100u}) {
    const auto base = make_base(3, PayloadStream::response, n);
    std::vector<std::uint8_t> frame = base;
    for (std::uint64_t seq : {0ull, 1ull, 0x0102030405060708ull, ~0ull}) {
      stamp_from(frame.data(), base.data(), n, seq);
      EXPECT_EQ(frame, make_payload(3, PayloadStream::response, seq, n)) << "n " << n;
    }
  }
}

TEST(Payload, FirstDifferenceFindsTheOffset) {
  const std::size_t n = 40;
  const auto base = make_base(1, PayloadStream::request, n);
  auto p = make_payload(1, PayloadStream::request, 9, n);
  EXPECT_EQ(first_difference(p.data(), base.data(), n, 9), kNoDifference);
  EXPECT_EQ(first_difference(p.data(), base.data(), n, 10), 0u);  // stale sequence
  p[3] ^= 1;
  EXPECT_EQ(first_difference(p.data(), base.data(), n, 9), 3u);
  p[3] ^= 1;
  p[39] ^= 0x80;
  EXPECT_EQ(first_difference(p.data(), base.data(), n, 9), 39u);
  EXPECT_EQ(first_difference(p.data(), base.data(), 0, 9), kNoDifference);
}

TEST(Payload, BaseCacheFollowsTheSize) {
  BaseCache cache(5, PayloadStream::request);
  const auto a = make_base(5, PayloadStream::request, 20);
  EXPECT_EQ(0, std::memcmp(cache.get(20), a.data(), 20));
  const auto b = make_base(5, PayloadStream::request, 3);
  EXPECT_EQ(0, std::memcmp(cache.get(3), b.data(), 3));
}

}  // namespace
}  // namespace ipclab
