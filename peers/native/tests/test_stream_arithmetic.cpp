// The arithmetic of pattern stream (PROTOCOL.md 11.1) in process: the checksum, the MARK frame
// of the vectors, and the server's tally recovering sequences from the messages' stamps.
#include <gtest/gtest.h>

#include "frame.hpp"
#include "payload.hpp"
#include "support.hpp"
#include "tally.hpp"

namespace ipclab {
namespace {

// ---- the checksum and the tally -------------------------------------------------------------------------

TEST(StreamChecksum, IsTheWordSumOfThePayloadZeroPadded) {
  const std::uint8_t ten[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  // 0x0807060504030201 + 0x0a09 (the last word zero-padded).
  EXPECT_EQ(word_sum(ten, 10), 0x0807060504030c0aULL);
  EXPECT_EQ(word_sum(ten, 3), 0x030201ULL);
  EXPECT_EQ(word_sum(ten, 0), 0u);
  const std::uint8_t ones[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                 0x02, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(word_sum(ones, 16), 1u);  // mod 2^64
}

TEST(StreamChecksum, BlocksWordsAndTailAgreeWithAByteByByteSum) {
  std::vector<std::uint8_t> bytes(200);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 37 + 250);
  for (std::size_t n = 0; n <= bytes.size(); ++n) {
    std::uint64_t want = 0;
    for (std::size_t i = 0; i < n; ++i) want += static_cast<std::uint64_t>(bytes[i]) << (8 * (i % 8));
    EXPECT_EQ(word_sum(bytes.data(), n), want) << n;
  }
}

TEST(StreamChecksum, ClientAndServerSumsGiveTheVectors) {
  for (const auto& v : test::vectors()["stream_checksums"]) {
    const std::uint64_t seed = v["seed"], first = v["first_sequence"], count = v["messages"];
    const std::size_t size = v["message_size"];
    const std::uint64_t want = std::stoull(v["checksum"].get<std::string>(), nullptr, 16);
    EXPECT_EQ(expected_checksum(seed, size, first, count), want) << v.dump();
    StreamTally tally(StreamTally::Fault::none);
    tally.restart(first - 1);
    for (std::uint64_t s = first; s < first + count; ++s) {
      const auto p = make_payload(seed, PayloadStream::request, s, size);
      tally.add(s, p.data(), p.size());
    }
    std::uint8_t ack[56];
    tally.write_ack(ack);
    EXPECT_EQ(load_le64(ack + 16), want) << v.dump();
    if (size == 0) continue;  // no message of 0 bytes since contract 4
    // The server of a byte stream: sequences recovered from the messages' stamps.
    const auto base = make_base(seed, PayloadStream::request, size);
    StreamTally bare(StreamTally::Fault::none);
    bare.restart(first - 1, base.data(), size);
    for (std::uint64_t s = first; s < first + count; ++s)
      bare.add_message(make_payload(seed, PayloadStream::request, s, size).data());
    bare.write_ack(ack);
    EXPECT_EQ(load_le64(ack), count) << v.dump();
    EXPECT_EQ(load_le64(ack + 8), 0u) << v.dump();
    EXPECT_EQ(load_le64(ack + 16), want) << v.dump();
  }
}

TEST(StreamMark, EncodesAndDecodesEveryVector) {
  for (const auto& v : test::vectors()["stream_marks"]) {
    const std::uint64_t size = v["message_size"], count = v["count"], seq = v["sequence"];
    std::uint8_t frame[kMarkSize];
    encode_header(frame, FrameKind::mark, seq, kMarkPayload, 0);
    encode_mark(frame + kHeaderSize, size, count);
    EXPECT_EQ(test::to_hex(frame, sizeof frame), v["hex"].get<std::string>()) << v.dump();
    const auto bytes = test::from_hex(v["hex"].get<std::string>());
    ASSERT_EQ(bytes.size(), kMarkSize);
    EXPECT_EQ(check_request_header(decode_header(bytes.data())), nullptr) << v.dump();
    const MarkFields m = decode_mark(bytes.data() + kHeaderSize);
    EXPECT_EQ(m.message_size, size);
    EXPECT_EQ(m.count, count);
    EXPECT_EQ(check_mark_payload(m, kMaxPayload), nullptr);
  }
  EXPECT_STREQ(check_mark_payload({0, 1}, kMaxPayload), "bad stream frame");
  EXPECT_STREQ(check_mark_payload({65508, 1}, kUdpMaxMessage), "bad stream frame");
  EXPECT_EQ(check_mark_payload({65507, 1}, kUdpMaxMessage), nullptr);
}

TEST(StreamTally, RecoversSequencesFromStampsModuloTheStampedBytes) {
  // Two-byte messages carry the sequence modulo 2^16: 65535 -> 65536 is no gap, a skipped
  // message is one, and the count continues from the received sequence.
  const auto base = make_base(9, PayloadStream::request, 2);
  StreamTally t(StreamTally::Fault::none);
  t.restart(65533, base.data(), 2);
  std::uint64_t sum = 0;
  for (std::uint64_t s : {65534u, 65535u, 65536u, 65538u, 65539u}) {
    const auto p = make_payload(9, PayloadStream::request, s, 2);
    t.add_message(p.data());
    sum += word_sum(p.data(), 2);
  }
  std::uint8_t ack[56];
  t.write_ack(ack);
  EXPECT_EQ(load_le64(ack), 5u);
  EXPECT_EQ(load_le64(ack + 8), 1u);  // 65537 missing
  EXPECT_EQ(load_le64(ack + 16), sum);
  t.count_gap();  // udp: a datagram of another size
  t.write_ack(ack);
  EXPECT_EQ(load_le64(ack + 8), 2u);
}

TEST(StreamChecksum, ExpectedSumMatchesTheStampedPayloads) {
  for (std::size_t size : {0u, 1u, 5u, 8u, 9u, 1024u, 1027u}) {
    std::uint64_t sum = 0;
    for (std::uint64_t s = 7; s < 7 + 300; ++s) {
      const auto p = make_payload(42, PayloadStream::request, s, size);
      sum += word_sum(p.data(), p.size());
    }
    EXPECT_EQ(expected_checksum(42, size, 7, 300), sum) << size;
  }
}

TEST(StreamTally, CountsGapsAndTheFaults) {
  const auto payload = make_payload(1, PayloadStream::request, 3, 12);
  const std::uint64_t one = word_sum(payload.data(), payload.size());
  std::uint8_t ack[56];
  const auto field = [&](int i) { return load_le64(ack + 8 * i); };

  StreamTally plain(StreamTally::Fault::none);
  plain.restart(10);  // MARK 10: DATA from 11
  for (std::uint64_t s : {11u, 12u, 14u}) plain.add(s, payload.data(), payload.size());
  plain.write_ack(ack);
  EXPECT_EQ(field(0), 3u);
  EXPECT_EQ(field(1), 1u);  // 13 missing
  EXPECT_EQ(field(2), 3 * one);

  StreamTally drop(StreamTally::Fault::drop_message);
  drop.restart(0);
  for (std::uint64_t s = 1; s <= 4; ++s) drop.add(s, payload.data(), payload.size());
  drop.write_ack(ack);
  EXPECT_EQ(field(0), 3u);  // the second one left out
  EXPECT_EQ(field(2), 3 * one);

  StreamTally flip(StreamTally::Fault::flip_byte);
  flip.restart(0);
  for (std::uint64_t s = 1; s <= 4; ++s) flip.add(s, payload.data(), payload.size());
  flip.write_ack(ack);
  auto flipped = payload;
  flipped.back() ^= 0x01;
  EXPECT_EQ(field(0), 4u);
  EXPECT_EQ(field(1), 0u);
  EXPECT_EQ(field(2), 3 * one + word_sum(flipped.data(), flipped.size()));
}

}  // namespace
}  // namespace ipclab
