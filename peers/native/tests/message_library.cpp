#include "message_library.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>

#include "frame.hpp"

namespace ipclab::test {

Server two_socket_server(const std::string& mech, const TempDir& dir,
                         const std::vector<std::string>& extra) {
  const bool ipc = mech.size() > 4 && mech.compare(mech.size() - 4, 4, "-ipc") == 0;
  std::vector<std::string> args = {"serve", "--mechanism", mech, "--endpoint",
                                   ipc ? dir.file("s") : "127.0.0.1:0"};
  args.insert(args.end(), extra.begin(), extra.end());
  return Server(args);
}

Launched launch_server(const std::string& module, const std::vector<std::string>& args) {
  Launched l;
  const std::string root = IPCLAB_VECTORS_DIR "/../..";
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return l;
  std::vector<std::string> argv = {root + "/.venv/bin/python", "-m", module};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  l.pid = ::fork();
  if (l.pid == 0) {
    ::dup2(out[1], 1);
    ::setenv("PYTHONPATH", (root + "/orchestrator/src").c_str(), 1);
    ::execv(cargv[0], cargv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  std::string line;
  char c;
  pollfd p{out[0], POLLIN, 0};
  while (::poll(&p, 1, 30000) > 0 && ::read(out[0], &c, 1) == 1 && c != '\n') line += c;
  ::close(out[0]);
  l.endpoint = line;
  return l;
}

void stop(Launched& l) {
  if (l.pid > 0) {
    ::kill(l.pid, SIGTERM);
    ::waitpid(l.pid, nullptr, 0);
    l.pid = -1;
  }
}

void expect_ready_names_the_server(Server& server, const std::string& mech,
                                   const std::string& endpoint, const std::string& prefix) {
  ASSERT_TRUE(server.ready());
  EXPECT_EQ(server.endpoint(), endpoint);
  EXPECT_EQ(server.ready_json()["mechanism"], mech);
  const std::string broker = server.ready_json()["broker"];
  EXPECT_EQ(broker.rfind(prefix, 0), 0u) << broker;
  EXPECT_GT(broker.size(), prefix.size()) << broker;
}

DriveRun stream_run(const std::string& mech, const std::string& endpoint, const TempDir& dir,
                    const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"drive", "--pattern", "stream", "--mechanism", mech,
                                   "--endpoint", endpoint, "--samples-file",
                                   dir.file("samples.bin"), "--result-file",
                                   dir.file("result.json")};
  args.insert(args.end(), extra.begin(), extra.end());
  DriveRun run;
  run.child = run_peer(args, {}, 60000);
  run.result = nlohmann::json::parse(read_file(dir.file("result.json")));
  run.samples = read_samples(dir.file("samples.bin"));
  return run;
}

void expect_listed_with_library(const std::vector<std::string>& mechs, bool built,
                                const std::string& library) {
  int code = -1;
  const auto caps = nlohmann::json::parse(peer_stdout({"capabilities"}, &code));
  ASSERT_EQ(code, 0);
  for (const std::string& mech : mechs) {
    SCOPED_TRACE(mech);
    if (!built) {
      EXPECT_FALSE(caps["mechanisms"].contains(mech));
      continue;
    }
    ASSERT_TRUE(caps["mechanisms"].contains(mech));
    const auto& m = caps["mechanisms"][mech];
    EXPECT_EQ(m["patterns"], nlohmann::json::array({"rr", "stream"}));
    EXPECT_EQ(m["library"], library);
  }
}

void expect_round_trips_up_to_the_largest_payload(const std::string& mech, Server& server,
                                                  const TempDir& dir, std::uint32_t largest) {
  ASSERT_TRUE(server.ready());
  for (const std::uint32_t size : {0u, 16u, 1u << 20}) {
    const DriveRun run =
        drive_bytes(mech, server.endpoint(), dir, size, size, 20, {"--warmup", "3"});
    EXPECT_EQ(run.child.exit_code, 0) << size << ": " << run.child.err;
    EXPECT_EQ(run.samples.size(), 20u);
  }
  const DriveRun big = drive_bytes(mech, server.endpoint(), dir, largest, largest, 1);
  EXPECT_EQ(big.child.exit_code, 0) << big.child.err;
  if (largest < kMaxPayload) {  // one byte more: refused before anything is sent
    const DriveRun over = drive_bytes(mech, server.endpoint(), dir, largest + 1, 16, 1);
    EXPECT_EQ(over.child.exit_code, 7) << over.child.err;
    EXPECT_EQ(over.result["error_kind"], "unsupported");
    EXPECT_NE(over.child.err.find("carries at most " + std::to_string(largest)),
              std::string::npos) << over.child.err;
  }
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

void expect_streams_count_every_message(const std::string& mech, Server& server,
                                        const TempDir& dir) {
  ASSERT_TRUE(server.ready());
  for (const std::string size : {"1", "1000", "4194304"}) {
    const DriveRun run = stream_run(
        mech, server.endpoint(), dir,
        {"--message-size", size, "--messages", size == "4194304" ? "40" : "3000", "--windows",
         "4", "--warmup", "10"});
    EXPECT_EQ(run.child.exit_code, 0) << size << ": " << run.child.err;
    EXPECT_EQ(run.samples.size(), 4u);
  }
  server.close_stdin();
  EXPECT_EQ(server.wait().exit_code, 0);
}

void expect_short_and_load_refused(const std::string& mech, const std::string& client_endpoint,
                                   const std::string& server_endpoint, const TempDir& dir) {
  const DriveRun run = drive_bytes(mech, client_endpoint, dir, 16, 16, 1, {"--pattern", "short"});
  EXPECT_EQ(run.child.exit_code, 7) << run.child.err;
  EXPECT_EQ(run.result["error_kind"], "unsupported");
  const ChildResult load = run_peer({"serve", "--pattern", "load", "--server-model", "iterative",
                                     "--mechanism", mech, "--endpoint", server_endpoint});
  EXPECT_EQ(load.exit_code, 7) << load.err;
}

std::vector<std::uint8_t> frame(FrameKind kind, std::uint64_t seq, std::uint32_t length,
                                std::size_t payload_bytes) {
  std::vector<std::uint8_t> f(kHeaderSize + payload_bytes);
  encode_header(f.data(), kind, seq, length, 0);
  return f;
}

void expect_rejections_said(const ChildResult& stopped) {
  std::vector<std::string> said;
  std::istringstream lines(stopped.err);
  for (std::string line; std::getline(lines, line);) said.push_back(line);
  const std::string prefix = "ipclab-peer: rejected frame: ";
  ASSERT_EQ(said.size(), 5u) << stopped.err;
  EXPECT_EQ(std::vector<std::string>(said.begin(), said.begin() + 3),
            (std::vector<std::string>{prefix + "truncated header", prefix + "length mismatch",
                                      prefix + "bad magic"}));
  std::vector<std::string> stream(said.begin() + 3, said.end());
  std::sort(stream.begin(), stream.end());
  EXPECT_EQ(stream, (std::vector<std::string>{prefix + "length mismatch",
                                              prefix + "unexpected message"}));
  EXPECT_EQ(stopped.exit_code, 0);
}

void expect_rejections_said_in_order(const ChildResult& stopped,
                                     const std::vector<std::string>& more) {
  std::string reasons;
  std::vector<std::string> said = {"truncated header", "length mismatch", "bad magic",
                                   "length mismatch"};
  said.insert(said.end(), more.begin(), more.end());
  for (const std::string& reason : said) reasons += "ipclab-peer: rejected frame: " + reason + "\n";
  EXPECT_EQ(stopped.err, reasons);
  EXPECT_EQ(stopped.exit_code, 0);
}

void expect_a_lost_server_ends_the_responder(const std::string& mech, Launched& l,
                                             const std::string& endpoint,
                                             const std::string& said) {
  ASSERT_FALSE(l.endpoint.empty()) << "the server did not start";
  Server server({"serve", "--mechanism", mech, "--endpoint", endpoint});
  ASSERT_TRUE(server.ready());
  stop(l);
  const ChildResult r = server.wait(10000);
  EXPECT_EQ(r.exit_code, 5) << r.err;
  if (!said.empty()) {
    EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
  }
  Server refused({"serve", "--mechanism", mech, "--endpoint", endpoint});
  EXPECT_FALSE(refused.ready());
  const ChildResult why = refused.wait(10000);
  EXPECT_EQ(why.exit_code, 5) << why.err;
}

}  // namespace ipclab::test
