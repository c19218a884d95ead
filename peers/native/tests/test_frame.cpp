// Header encoding against the `frames` vectors, and the checks both sides make (section 2).
#include <gtest/gtest.h>

#include "frame.hpp"
#include "support.hpp"

namespace ipclab {
namespace {

FrameKind kind_of(const std::string& name) {
  if (name == "request") return FrameKind::request;
  if (name == "response") return FrameKind::response;
  if (name == "end") return FrameKind::end;
  return FrameKind::end_ack;
}

TEST(Frame, EncodesEveryVector) {
  const auto& list = test::vectors().at("frames");
  ASSERT_GE(list.size(), 5u);
  for (const auto& v : list) {
    SCOPED_TRACE(v.at("name").get<std::string>());
    std::uint8_t out[kHeaderSize];
    encode_header(out, kind_of(v.at("kind").get<std::string>()), v.at("sequence").get<std::uint64_t>(),
                  v.at("length").get<std::uint32_t>(), v.at("wanted").get<std::uint32_t>());
    EXPECT_EQ(test::to_hex(out, kHeaderSize), v.at("hex").get<std::string>());
  }
}

TEST(Frame, DecodesEveryVector) {
  for (const auto& v : test::vectors().at("frames")) {
    SCOPED_TRACE(v.at("name").get<std::string>());
    const auto bytes = test::from_hex(v.at("hex").get<std::string>());
    ASSERT_EQ(bytes.size(), kHeaderSize);
    const Header h = decode_header(bytes.data());
    EXPECT_EQ(h.kind, static_cast<std::uint8_t>(kind_of(v.at("kind").get<std::string>())));
    EXPECT_EQ(h.flags, v.at("flags").get<std::uint16_t>());
    EXPECT_EQ(h.sequence, v.at("sequence").get<std::uint64_t>());
    EXPECT_EQ(h.length, v.at("length").get<std::uint32_t>());
    EXPECT_EQ(h.wanted, v.at("wanted").get<std::uint32_t>());
  }
}

TEST(Frame, ConstantsMatchTheVectors) {
  EXPECT_EQ(kMaxPayload, test::vectors().at("max_payload").get<std::uint32_t>());
  EXPECT_EQ(kHeaderSize, test::vectors().at("header_size").get<std::size_t>());
}

TEST(Frame, ServerAcceptsRequestAndEnd) {
  std::uint8_t b[kHeaderSize];
  encode_header(b, FrameKind::request, 1, kMaxPayload, kMaxPayload);
  EXPECT_EQ(check_request_header(decode_header(b)), nullptr);
  encode_header(b, FrameKind::end, 1, 0, 0);
  EXPECT_EQ(check_request_header(decode_header(b)), nullptr);
}

TEST(Frame, ClientNamesTheFirstWrongField) {
  std::uint8_t b[kHeaderSize];
  encode_header(b, FrameKind::response, 7, 16, 32);
  EXPECT_FALSE(check_reply_header(decode_header(b), FrameKind::response, 7, 16, 32));
  EXPECT_EQ(*check_reply_header(decode_header(b), FrameKind::response, 8, 16, 32),
            "sequence: expected 8, received 7");
  EXPECT_EQ(*check_reply_header(decode_header(b), FrameKind::response, 7, 17, 32),
            "length: expected 17, received 16");
  EXPECT_EQ(*check_reply_header(decode_header(b), FrameKind::response, 7, 16, 31),
            "wanted: expected 31, received 32");
  EXPECT_EQ(*check_reply_header(decode_header(b), FrameKind::end_ack, 7, 16, 32),
            "kind: expected 4, received 2");
  b[6] = 1;
  EXPECT_EQ(*check_reply_header(decode_header(b), FrameKind::response, 7, 16, 32),
            "flags: expected 0, received 1");
  b[4] = 9;
  EXPECT_EQ(*check_reply_header(decode_header(b), FrameKind::response, 7, 16, 32),
            "version: expected 1, received 9");
  b[0] = 'X';
  EXPECT_EQ(*check_reply_header(decode_header(b), FrameKind::response, 7, 16, 32),
            "magic: expected 0x4950434c, received 0x5850434c");
}

}  // namespace
}  // namespace ipclab
