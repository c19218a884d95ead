// The file mechanisms (file, file-poll) of PROTOCOL.md 4.2, ipclab-peer run as the orchestrator
// runs it: malformed request files, the frames SIGTERM leaves, a directory that already holds a
// frame.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "message_objects.hpp"

namespace ipclab {
namespace {

using namespace message_test;
using test::ChildResult;

// ---- files: malformed frames, existing paths ------------------------------------------------

void put_frame(const std::string& dir, const std::vector<std::uint8_t>& bytes) {
  // As a client does: write req.tmp, rename to req. Then wait until the server took it.
  const std::string tmp = dir + "/req.tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<long>(bytes.size()));
  }
  ASSERT_EQ(::rename(tmp.c_str(), (dir + "/req").c_str()), 0);
  for (int i = 0; i < 2500 && test::exists(dir + "/req"); ++i) ::usleep(2000);
  ASSERT_FALSE(test::exists(dir + "/req"));
}

class FileMechanism : public ::testing::TestWithParam<std::string> {};

TEST_P(FileMechanism, RejectsMalformedFilesAndServesTheNextClient) {
  const std::string mech = GetParam();
  TempDir dir;
  Server server(serve_args(mech, dir));
  ASSERT_TRUE(server.ready());
  const std::string d = server.endpoint();
  std::string expected;
  for (const auto& m : test::vectors()["malformed"]) {
    std::string reason = m["reason"];
    if (reason == "truncated payload") reason = "length mismatch";  // a file has one size
    put_frame(d, test::from_hex(m["hex"].get<std::string>()));
    expected += "ipclab-peer: rejected frame: " + reason + "\n";
  }
  const DriveRun run = drive(mech, d, dir, 5000, 5000, 3, client_extra(mech));
  EXPECT_EQ(run.child.exit_code, 0) << run.child.err;
  server.close_stdin();
  const ChildResult end = server.wait();
  EXPECT_EQ(end.exit_code, 0);
  EXPECT_EQ(end.err, expected);
  EXPECT_TRUE(directory_empty(d));
}

TEST_P(FileMechanism, SigtermRemovesLeftoverFrames) {
  const std::string mech = GetParam();
  TempDir dir;
  Server server(serve_args(mech, dir));
  ASSERT_TRUE(server.ready());
  const std::string d = server.endpoint();
  std::ofstream(d + "/resp.tmp") << "x";
  std::ofstream(d + "/resp") << "x";
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait().exit_code, 0);
  EXPECT_TRUE(directory_empty(d));
}

TEST_P(FileMechanism, ServerRefusesExistingFrames) {
  const std::string mech = GetParam();
  TempDir dir;
  const std::string d = serve_endpoint(mech, dir);
  std::ofstream(d + "/req") << "x";
  Server server(serve_args(mech, dir));
  EXPECT_FALSE(server.ready());
  const ChildResult end = server.wait();
  EXPECT_EQ(end.exit_code, 5) << end.err;
  EXPECT_NE(end.err.find("path exists"), std::string::npos) << end.err;
  EXPECT_TRUE(test::exists(d + "/req"));  // not the server's to remove
}

INSTANTIATE_TEST_SUITE_P(Peer, FileMechanism, ::testing::Values("file", "file-poll"),
                         test::param_name);

}  // namespace
}  // namespace ipclab
