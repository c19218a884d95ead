// Contract 6's condition flags (section 1): --read-size and --backlog (serve), --source,
// --value-range, --records and --mock (drive): their parsing. Each one's effect is tested in a
// file of its own: test_read_size.cpp, test_connection_conditions.cpp (--backlog, --source) and
// test_payload_conditions.cpp (--value-range, --records, --mock).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli.hpp"
#include "error.hpp"
#include "structs.hpp"

namespace ipclab {
namespace {

std::vector<std::string> tcp_serve_args(std::vector<std::string> extra, const char* mech = "tcp") {
  std::vector<std::string> a = {"serve", "--mechanism", mech, "--endpoint", "127.0.0.1:0"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// A drive command line of the given payload (bytes: sizes 1 and 1) and pattern, then extra.
std::vector<std::string> drive_args(std::vector<std::string> extra, const char* payload = "bytes",
                                    const char* pattern = "rr") {
  std::vector<std::string> a = {"drive", "--mechanism", "rest", "--endpoint", "127.0.0.1:1",
                                "--iterations", "1", "--samples-file", "s", "--result-file", "r",
                                "--pattern", pattern, "--payload", payload};
  if (std::string(payload) == "bytes") a.insert(a.end(), {"--request-size", "1",
                                                          "--response-size", "1"});
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

ServeOptions serve_options(std::vector<std::string> extra, const char* mech = "tcp") {
  return std::get<ServeOptions>(parse_command_line(tcp_serve_args(std::move(extra), mech)));
}
DriveOptions drive_options(std::vector<std::string> extra, const char* payload = "bytes",
                           const char* pattern = "rr") {
  return std::get<DriveOptions>(parse_command_line(drive_args(std::move(extra), payload,
                                                              pattern)));
}

// ---- parsing ---------------------------------------------------------------------------------

TEST(Conditions, ReadSizeParses) {
  EXPECT_EQ(serve_options({}).read_size, 0u);
  EXPECT_EQ(serve_options({"--read-size", "0"}).read_size, 0u);
  EXPECT_EQ(serve_options({"--read-size", "1024"}).read_size, 1024u);
  EXPECT_EQ(serve_options({"--read-size", "134217728"}).read_size, 134217728u);
  for (const char* bad : {"134217729", "-1", "1k", "", " 1", "0x10", "99999999999999999999"})
    EXPECT_THROW(parse_command_line(tcp_serve_args({"--read-size", bad})), UsageError) << bad;
  EXPECT_THROW(parse_command_line(tcp_serve_args({"--read-size", "1", "--read-size", "1"})),
               UsageError);
  EXPECT_THROW(parse_command_line(tcp_serve_args({"--read-size"})), UsageError);
  EXPECT_THROW(parse_command_line(drive_args({"--read-size", "1"})), UsageError);  // serve's
}

TEST(Conditions, BacklogParsesForTheRrServerWithTheBurstServersLimits) {
  EXPECT_EQ(serve_options({}).backlog, 512u);
  EXPECT_FALSE(serve_options({}).backlog_given);
  const ServeOptions o = serve_options({"--backlog", "50"});
  EXPECT_EQ(o.backlog, 50u);
  EXPECT_TRUE(o.backlog_given);
  EXPECT_EQ(serve_options({"--backlog", "65535"}, "uds").backlog, 65535u);
  for (const char* bad : {"0", "65536", "-5", "5x", ""})
    EXPECT_THROW(parse_command_line(tcp_serve_args({"--backlog", bad})), UsageError) << bad;
  EXPECT_THROW(parse_command_line(drive_args({"--backlog", "5"})), UsageError);  // serve's
}

TEST(Conditions, SourceParsesForShortOnly) {
  EXPECT_TRUE(drive_options({}, "bytes", "short").source_rotate);
  EXPECT_TRUE(drive_options({"--source", "rotate"}, "bytes", "short").source_rotate);
  EXPECT_FALSE(drive_options({"--source", "one"}, "bytes", "short").source_rotate);
  EXPECT_THROW(parse_command_line(drive_args({"--source", "two"}, "bytes", "short")),
               UsageError);
  for (const char* value : {"one", "rotate"})  // another pattern: a usage error, either value
    EXPECT_THROW(parse_command_line(drive_args({"--source", value})), UsageError) << value;
  EXPECT_THROW(parse_command_line(drive_args({"--source", "one", "--source", "one"}, "bytes",
                                             "short")),
               UsageError);
}

TEST(Conditions, ValueRangeAndRecordsParseForStructuredPayloadsOnly) {
  const DriveOptions plain = drive_options({}, "small");
  EXPECT_EQ(plain.value_range, ValueRange::full);
  EXPECT_FALSE(plain.records_per_call);
  for (const char* kind : {"small", "medium", "large"}) {
    const DriveOptions o = drive_options({"--value-range", "non-negative", "--records",
                                          "per-call"}, kind);
    EXPECT_EQ(o.value_range, ValueRange::non_negative);
    EXPECT_TRUE(o.records_per_call);
  }
  // The defaults may be named with bytes; another value is a usage error, as is a bad one.
  EXPECT_EQ(drive_options({"--value-range", "full", "--records", "one"}).value_range,
            ValueRange::full);
  EXPECT_THROW(parse_command_line(drive_args({"--value-range", "non-negative"})), UsageError);
  EXPECT_THROW(parse_command_line(drive_args({"--records", "per-call"})), UsageError);
  EXPECT_THROW(parse_command_line(drive_args({"--value-range", "positive"}, "small")),
               UsageError);
  EXPECT_THROW(parse_command_line(drive_args({"--records", "many"}, "small")), UsageError);
  EXPECT_THROW(parse_command_line(drive_args({"--records", "one", "--records", "one"}, "small")),
               UsageError);
}

TEST(Conditions, MockParses) {
  EXPECT_FALSE(drive_options({}).mock_new_array);
  EXPECT_FALSE(drive_options({"--mock", "copy"}).mock_new_array);
  EXPECT_TRUE(drive_options({"--mock", "new-array"}).mock_new_array);
  EXPECT_THROW(parse_command_line(drive_args({"--mock", "new"})), UsageError);
  EXPECT_THROW(parse_command_line(drive_args({"--mock"})), UsageError);
}

}  // namespace
}  // namespace ipclab
