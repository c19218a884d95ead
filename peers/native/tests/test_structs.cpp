// The structured records of section 10.2 against the `structs` vectors.
#include <gtest/gtest.h>

#include "structs.hpp"
#include "support.hpp"

namespace ipclab {
namespace {

nlohmann::json to_json(const Record& r) {
  nlohmann::json j = nlohmann::json::object();
  const auto put = [&j](const char* prefix, std::size_t i, const nlohmann::json& v) {
    j[prefix + std::to_string(i + 1)] = v;
  };
  for (std::size_t i = 0; i < r.n.size(); ++i) put("n", i, r.n[i]);
  for (std::size_t i = 0; i < r.s.size(); ++i) put("s", i, r.s[i]);
  for (std::size_t i = 0; i < r.b.size(); ++i) put("b", i, static_cast<bool>(r.b[i]));
  for (std::size_t i = 0; i < r.d.size(); ++i) put("d", i, r.d[i]);
  for (std::size_t i = 0; i < r.li.size(); ++i) put("li", i, r.li[i]);
  for (std::size_t i = 0; i < r.ls.size(); ++i) put("ls", i, r.ls[i]);
  for (std::size_t i = 0; i < r.ld.size(); ++i) put("ld", i, r.ld[i]);
  return j;
}

TEST(Record, MatchesEveryStructVector) {
  const auto& list = test::vectors().at("structs");
  ASSERT_GE(list.size(), 6u);
  for (const auto& v : list) {
    const auto kind = parse_payload_kind(v.at("kind").get<std::string>());
    ASSERT_TRUE(kind.has_value());
    Record r = make_record(v.at("seed").get<std::uint64_t>(), *kind,
                           v.at("sequence_length").get<std::uint32_t>());
    if (v.contains("sequence")) r.n[0] = record_stamp(v.at("sequence").get<std::uint64_t>());
    SCOPED_TRACE(v.dump());
    // Parsed JSON numbers compare by value (an integral double equals its integer).
    EXPECT_EQ(to_json(r), v.at("value"));
    // Doubles exactly: the same shortest round-trip text.
    for (const auto& [name, value] : v.at("value").items()) {
      if (name[0] == 'd' || (name[0] == 'l' && name[1] == 'd')) {
        EXPECT_EQ(to_json(r)[name].dump(), nlohmann::json(value).dump()) << name;
      }
    }
  }
}

TEST(Record, DifferenceNamesTheField) {
  const Record a = make_record(1, PayloadKind::large, 3);
  Record b = a;
  EXPECT_EQ(first_record_difference(a, b), "");
  b.ls[1][2] += "x";
  EXPECT_EQ(first_record_difference(a, b), "ls2[2]");
  b = a;
  b.n[1] ^= 1;
  EXPECT_EQ(first_record_difference(a, b), "n2");
}

}  // namespace
}  // namespace ipclab
