// Contract 3's study flags (section 1): --void, --rest-body, --corba-payload, --nodelay, run as
// the orchestrator runs them (a serve and a drive process), plus their pure parts.
#include <gtest/gtest.h>
#include <httplib.h>

#include <string>
#include <vector>

#include "cli.hpp"
#include "error.hpp"
#include "payload.hpp"
#include "rpc/rest_body.hpp"
#include "support.hpp"

namespace ipclab {
namespace {

using test::DriveRun;
using test::Server;
using test::TempDir;

void expect_ok(const DriveRun& run, std::uint64_t samples) {
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.result["status"], "ok");
  EXPECT_EQ(run.samples.size(), samples);
}

class EveryRpcVoid : public ::testing::TestWithParam<std::string> {};

// put and putSmall / putMedium / putLarge against this peer's own server; a wrong request is
// counted by put as by call and reported by finish.
TEST_P(EveryRpcVoid, PutCallsAreSamplesAndCorruptedPutsAreCounted) {
  const std::string mech = GetParam();
  TempDir dir;
  Server server({"serve", "--mechanism", mech, "--endpoint", "127.0.0.1:0", "--seed", "4"});
  ASSERT_TRUE(server.ready());
  const std::vector<std::string> bytes = {"--request-size", "1000", "--response-size", "0",
                                          "--void", "--seed", "4", "--warmup", "3"};
  expect_ok(test::drive(mech, server.endpoint(), dir, 30, bytes), 30);
  for (const char* kind : {"small", "medium", "large"}) {
    SCOPED_TRACE(kind);
    expect_ok(test::drive(mech, server.endpoint(), dir, 10, {"--payload", kind, "--void"}), 10);
  }
  DriveRun bad = test::drive(mech, server.endpoint(), dir, 5,
                             {"--request-size", "100", "--response-size", "0", "--void"});
  EXPECT_EQ(bad.child.exit_code, 3) << bad.child.err;
  EXPECT_NE(bad.child.err.find("5 corrupted"), std::string::npos) << bad.child.err;
  EXPECT_EQ(test::drive(mech, server.endpoint(), dir, 5,
                        {"--request-size", "1", "--response-size", "1", "--void"})
                .child.exit_code,
            2);
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

INSTANTIATE_TEST_SUITE_P(Peer, EveryRpcVoid, ::testing::ValuesIn(test::rpc_mechanisms()),
                         test::param_name);

TEST(Studies, VoidOnAFrameMechanismIsUnsupportedAndOtherPatternsAUsageError) {
  TempDir dir;
  const std::vector<std::string> v = {"--request-size", "1", "--response-size", "0", "--void"};
  EXPECT_EQ(test::drive("tcp", "127.0.0.1:1", dir, 1, v).child.exit_code, 7);
  auto s = v;
  s.insert(s.end(), {"--pattern", "short"});
  EXPECT_EQ(test::drive("rest", "127.0.0.1:1", dir, 1, s).child.exit_code, 2);
}

TEST(Base64, Rfc4648VectorsAndEveryByte) {
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"", ""},         {"f", "Zg=="},        {"fo", "Zm8="},       {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : vectors) {
    EXPECT_EQ(rpc::base64_encode(reinterpret_cast<const std::uint8_t*>(plain.data()),
                                 plain.size()),
              coded);
    std::string back;
    EXPECT_TRUE(rpc::base64_decode(coded, back)) << coded;
    EXPECT_EQ(back, plain);
  }
  std::vector<std::uint8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<std::uint8_t>(i);
  const std::string coded = rpc::base64_encode(all.data(), all.size());
  EXPECT_EQ(coded.substr(0, 8), "AAECAwQF");
  EXPECT_EQ(coded.substr(coded.size() - 8), "/P3+/w==");  // + and / are standard base64's
  std::string back;
  ASSERT_TRUE(rpc::base64_decode(coded, back));
  EXPECT_EQ(back, std::string(all.begin(), all.end()));
  for (const char* bad : {"Zg=", "Zg", "Zm9v!A==", "Zh==", "Zm9=", "=Zm9", "Z=g=", "Zm-_"})
    EXPECT_FALSE(rpc::base64_decode(bad, back)) << bad;
}

TEST(RestBody, JsonFormIsExactlyOneDataField) {
  const std::uint8_t bytes[] = {0xFB, 0xFF, 0x00};
  const std::string body = rpc::json_body(bytes, 3);
  EXPECT_EQ(body, R"({"data":"+/8A"})");
  EXPECT_EQ(rpc::bytes_of_json_body(body), std::string("\xFB\xFF\x00", 3));
  EXPECT_EQ(rpc::bytes_of_json_body(R"({"data": ""})"), "");
  for (const char* bad : {R"({"data":"+/8A","x":1})", R"({"data":1})", R"(["+/8A"])",
                          R"({"dat":"+/8A"})", R"({"data":"+/8"})", "not json"})
    EXPECT_THROW(rpc::bytes_of_json_body(bad), rpc::BadJsonBody) << bad;
}

TEST(RestBody, JsonRoundTripsCallsAndPutsAndTheServerAnswersInTheFormAsked) {
  TempDir dir;
  Server server({"serve", "--mechanism", "rest", "--endpoint", "127.0.0.1:0", "--seed", "3"});
  ASSERT_TRUE(server.ready());
  for (const auto& sizes : std::vector<std::vector<std::string>>{
           {"--request-size", "1000", "--response-size", "777"},
           {"--request-size", "0", "--response-size", "0"},
           {"--request-size", "65536", "--response-size", "1"}}) {
    auto args = sizes;
    args.insert(args.end(), {"--rest-body", "json", "--seed", "3", "--warmup", "2"});
    expect_ok(test::drive("rest", server.endpoint(), dir, 20, args), 20);
  }
  expect_ok(test::drive("rest", server.endpoint(), dir, 5,
                        {"--request-size", "10", "--response-size", "0", "--rest-body", "json",
                         "--void", "--seed", "3"}),
            5);
  // A stock HTTP client: the JSON form in, the JSON form out; octets in, octets out.
  const auto colon = server.endpoint().rfind(':');
  httplib::Client client(server.endpoint().substr(0, colon),
                         std::stoi(server.endpoint().substr(colon + 1)));
  const auto request = make_payload(3, PayloadStream::request, 0, 5);
  const auto expected = make_payload(3, PayloadStream::response, 0, 4);
  auto res = client.Post("/call/0?wanted=4", rpc::json_body(request.data(), 5), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(res->body, rpc::json_body(expected.data(), 4));
  res = client.Post("/put/1", R"({"data":"AAAA","more":1})", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  res = client.Post("/put/small", "{}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);  // not a Small
  res = client.Post("/finish", "", "application/octet-stream");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->body, R"({"corrupted":0})");
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

TEST(CallString, BytesTravelAsTheAlphabet) {
  const std::uint8_t bytes[] = {0, 25, 26, 61, 62, 255};
  char text[6];
  to_text(bytes, 6, text);
  EXPECT_EQ(std::string(text, 6), "AZa9AH");  // 255 mod 62 = 7
  const auto base = make_base(5, PayloadStream::request, 20);
  const auto stamped = make_payload(5, PayloadStream::request, 9, 20);
  std::string t(20, ' ');
  to_text(stamped.data(), 20, t.data());
  EXPECT_EQ(first_text_difference(t.data(), base.data(), 20, 9), kNoDifference);
  EXPECT_EQ(first_text_difference(t.data(), base.data(), 20, 8), 0u);
  t[15] = t[15] == 'A' ? 'B' : 'A';
  EXPECT_EQ(first_text_difference(t.data(), base.data(), 20, 9), 15u);
}

TEST(CallString, CorbaStringRoundTripsAndAWrongRequestIsCounted) {
  TempDir dir;
  Server server({"serve", "--mechanism", "corba", "--endpoint", "127.0.0.1:0", "--seed", "6"});
  ASSERT_TRUE(server.ready());
  for (const char* request : {"0", "7", "100000"}) {
    expect_ok(test::drive("corba", server.endpoint(), dir, 20,
                          {"--request-size", request, "--response-size", "3000",
                           "--corba-payload", "string", "--seed", "6", "--warmup", "2"}),
              20);
  }
  DriveRun bad = test::drive("corba", server.endpoint(), dir, 4,
                             {"--request-size", "50", "--response-size", "50", "--corba-payload",
                              "string", "--seed", "7"});
  EXPECT_EQ(bad.child.exit_code, 3) << bad.child.err;  // the response differs first
  EXPECT_NE(bad.child.err.find("payload mismatch"), std::string::npos) << bad.child.err;
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
  Server flipped({"serve", "--mechanism", "corba", "--endpoint", "127.0.0.1:0", "--fault",
                  "flip-response-byte"});
  ASSERT_TRUE(flipped.ready());
  bad = test::drive("corba", flipped.endpoint(), dir, 2,
                    {"--request-size", "8", "--response-size", "8", "--corba-payload", "string"});
  EXPECT_EQ(bad.child.exit_code, 3) << bad.child.err;
  EXPECT_NE(bad.child.err.find("offset 7"), std::string::npos) << bad.child.err;
}

TEST(Studies, StringAndJsonElsewhereAreUnsupported) {
  TempDir dir;
  const std::vector<std::string> s = {"--request-size", "1", "--response-size", "1"};
  auto with = [&](std::vector<std::string> extra) {
    auto a = s;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  EXPECT_EQ(test::drive("grpc", "127.0.0.1:1", dir, 1, with({"--corba-payload", "string"}))
                .child.exit_code, 7);
  EXPECT_EQ(test::drive("tcp", "127.0.0.1:1", dir, 1, with({"--rest-body", "json"}))
                .child.exit_code, 7);
  EXPECT_EQ(test::drive("rest", "127.0.0.1:1", dir, 1, {"--payload", "small", "--rest-body",
                                                         "json"}).child.exit_code, 7);
  EXPECT_EQ(test::drive("rest", "127.0.0.1:1", dir, 1, with({"--rest-body", "xml"}))
                .child.exit_code, 2);
  // --one-way: short only (usage); the rest of it is in test_one_way.cpp.
  EXPECT_EQ(test::drive("tcp", "127.0.0.1:1", dir, 1, with({"--one-way"})).child.exit_code, 2);
}

std::vector<std::string> drive_args(std::vector<std::string> extra) {
  std::vector<std::string> a = {"drive", "--mechanism", "tcp", "--endpoint", "127.0.0.1:1",
                                "--request-size", "1", "--response-size", "1", "--iterations",
                                "1", "--samples-file", "s", "--result-file", "r"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST(Nodelay, FlagParsing) {
  EXPECT_TRUE(std::get<DriveOptions>(parse_command_line(drive_args({}))).nodelay);
  EXPECT_TRUE(std::get<DriveOptions>(parse_command_line(drive_args({"--nodelay", "on"}))).nodelay);
  EXPECT_FALSE(
      std::get<DriveOptions>(parse_command_line(drive_args({"--nodelay", "off"}))).nodelay);
  EXPECT_THROW(parse_command_line(drive_args({"--nodelay", "yes"})), UsageError);
  EXPECT_THROW(parse_command_line(drive_args({"--nodelay"})), UsageError);
  EXPECT_FALSE(std::get<ServeOptions>(parse_command_line({"serve", "--mechanism", "tcp",
                                                          "--endpoint", "127.0.0.1:0",
                                                          "--nodelay", "off"}))
                   .nodelay);
  const auto o = std::get<DriveOptions>(parse_command_line(drive_args({})));
  EXPECT_FALSE(o.void_call || o.rest_json || o.corba_string || o.one_way);
  EXPECT_THROW(parse_command_line(drive_args({"--void", "--void"})), UsageError);
}

TEST(Nodelay, OffRunsOverTcpAndRestAndIsUnsupportedElsewhere) {
  TempDir dir;
  for (const char* mech : {"tcp", "rest"}) {
    SCOPED_TRACE(mech);
    Server server({"serve", "--mechanism", mech, "--endpoint", "127.0.0.1:0", "--nodelay", "off"});
    ASSERT_TRUE(server.ready());
    for (const char* pattern : {"rr", "short"})
      expect_ok(test::drive(mech, server.endpoint(), dir, 5,
                            {"--request-size", "100", "--response-size", "100", "--nodelay",
                             "off", "--pattern", pattern}),
                5);
    server.close_stdin();
    EXPECT_EQ(server.wait().exit_code, 0);
  }
  const std::vector<std::string> off = {"--request-size", "1", "--response-size", "1",
                                        "--nodelay", "off"};
  for (const char* mech : {"grpc", "uds", "thrift-binary", "ice"}) {
    SCOPED_TRACE(mech);
    const DriveRun run = test::drive(mech, mech == std::string("uds") ? dir.file("x") : "127.0.0.1:1",
                                     dir, 1, off);
    EXPECT_EQ(run.child.exit_code, 7) << run.child.err;
  }
  EXPECT_EQ(test::drive("grpc", "127.0.0.1:1", dir, 1, off).child.err.find("TCP_NODELAY") ==
                std::string::npos,
            false);
  Server uds({"serve", "--mechanism", "uds", "--endpoint", dir.file("u"), "--nodelay", "off"});
  EXPECT_FALSE(uds.ready());
  EXPECT_EQ(uds.wait().exit_code, 7);
  Server grpc({"serve", "--mechanism", "grpc", "--endpoint", "127.0.0.1:0", "--nodelay", "off"});
  EXPECT_FALSE(grpc.ready());
  EXPECT_EQ(grpc.wait().exit_code, 7);
}

}  // namespace
}  // namespace ipclab
