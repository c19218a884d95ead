// The soap mechanism (PROTOCOL.md 10.3) beyond what every RPC mechanism is tested for
// (test_rpc.cpp, test_studies.cpp): a stock client (curl) against the server, the kept-alive
// connection, and a server's error as the client reports it. Only where gSOAP is built in.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <set>
#include <string>

#include "support.hpp"

namespace ipclab {
namespace {

#ifdef IPCLAB_EXPECT_SOAP

using test::DriveRun;
using test::Server;
using test::TempDir;

struct CurlAnswer {
  bool ran = false;
  int status = 0;
  std::string body;
};

// POSTs a SOAP 1.1 envelope holding `body` to http://endpoint/soap as the contract's curl line
// does (10.3); curl prints the answer's body, then its status on a line of its own.
CurlAnswer post_with_curl(const std::string& endpoint, const std::string& action,
                          const std::string& body) {
  const std::string envelope =
      "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>" +
      body + "</soap:Body></soap:Envelope>";
  const std::string command =
      "curl -s -w '\\n%{http_code}' -H 'Content-Type: text/xml; charset=utf-8' "
      "-H 'SOAPAction: \"urn:ipclab:soap:" + action + "\"' --data '" + envelope +
      "' http://" + endpoint + "/soap";
  CurlAnswer answer;
  FILE* out = ::popen(command.c_str(), "r");
  if (out == nullptr) return answer;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, out)) > 0;) answer.body.append(buf, n);
  answer.ran = ::pclose(out) == 0;
  const std::size_t cut = answer.body.rfind('\n');
  if (cut == std::string::npos) return answer;
  answer.status = std::atoi(answer.body.c_str() + cut + 1);
  answer.body.resize(cut);
  return answer;
}

bool have_curl() { return std::system("curl --version >/dev/null 2>&1") == 0; }

TEST(Soap, CurlGetsFinishResponseAndAFaultForABadCall) {
  if (!have_curl()) GTEST_SKIP() << "no curl";
  Server server({"serve", "--mechanism", "soap", "--endpoint", "127.0.0.1:0"});
  ASSERT_TRUE(server.ready());
  CurlAnswer a = post_with_curl(server.endpoint(), "finish", "<finish xmlns=\"urn:ipclab:soap\"/>");
  ASSERT_TRUE(a.ran);
  EXPECT_EQ(a.status, 200) << a.body;
  // Whatever prefixes the server chose: a finishResponse in urn:ipclab:soap with result 0.
  EXPECT_TRUE(std::regex_search(a.body, std::regex("xmlns:(\\w+)=\"urn:ipclab:soap\"")));
  EXPECT_TRUE(std::regex_search(a.body, std::regex("<(\\w+:)?finishResponse>\\s*"
                                                   "<(\\w+:)?result>0</(\\w+:)?result>")))
      << a.body;
  a = post_with_curl(server.endpoint(), "call",
                     "<call xmlns=\"urn:ipclab:soap\"><seq>1</seq><wanted>-1</wanted>"
                     "<request></request></call>");
  ASSERT_TRUE(a.ran);
  EXPECT_EQ(a.status, 500) << a.body;
  EXPECT_NE(a.body.find("Fault>"), std::string::npos) << a.body;
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

// gSOAP's server closes a kept-alive connection after 100 requests unless told otherwise; the
// client makes one connection for the run (10.1), warm-up and finish included.
TEST(Soap, OneConnectionCarriesTheWholeRun) {
  TempDir dir;
  Server server({"serve", "--mechanism", "soap", "--endpoint", "127.0.0.1:0", "--seed", "5"});
  ASSERT_TRUE(server.ready());
  const std::set<unsigned> before = test::connections_with(server.endpoint());
  const DriveRun run = test::drive_bytes("soap", server.endpoint(), dir, 16, 16, 150,
                                         {"--warmup", "10", "--seed", "5"});
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  EXPECT_EQ(run.samples.size(), 150u);
  EXPECT_EQ(test::new_connections(before, test::connections_with(server.endpoint())), 1u);
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

// An answer that is not the service's (here a REST server's 404 for POST /soap) is protocol.
TEST(Soap, AnotherServersAnswerIsProtocol) {
  TempDir dir;
  Server server({"serve", "--mechanism", "rest", "--endpoint", "127.0.0.1:0"});
  ASSERT_TRUE(server.ready());
  const DriveRun run = test::drive_bytes("soap", server.endpoint(), dir, 16, 16, 1);
  EXPECT_EQ(run.child.exit_code, 4) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "protocol");
  EXPECT_NE(run.child.err.find("ipclab-peer: protocol: soap: connect: "), std::string::npos)
      << run.child.err;
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

#else

TEST(Soap, NotBuiltInIsUnsupported) {
  test::TempDir dir;
  EXPECT_EQ(test::drive_bytes("soap", "127.0.0.1:9", dir, 1, 1, 1).child.exit_code, 7);
}

#endif

}  // namespace
}  // namespace ipclab
