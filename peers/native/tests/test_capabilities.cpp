// `ipclab-peer capabilities` (PROTOCOL.md section 1): one line of JSON that describes the
// mechanism table: every mechanism this build has, its patterns (section 11's table), its
// roles, its server and load models, its largest payload.
#include <algorithm>

#include <gtest/gtest.h>

#include "support.hpp"

namespace ipclab {
namespace {

TEST(Peer, CapabilitiesDescribesTheTable) {
  const test::ChildResult bad = test::run_peer({"capabilities", "--mechanism", "tcp"});
  EXPECT_EQ(bad.exit_code, 2);
  int code = -1;
  const std::string text = test::peer_stdout({"capabilities"}, &code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["contract"], 6);
  EXPECT_EQ(j["language"], "cpp");
  const auto& m = j["mechanisms"];
  const auto all = nlohmann::json::array({"rr", "stream", "short"});
  const auto stream = nlohmann::json::array({"rr", "stream"});
  const auto rr = nlohmann::json::array({"rr"});
  const auto rr_short = nlohmann::json::array({"rr", "short"});
  std::vector<std::string> names = {"tcp", "udp", "uds", "uds-dgram", "pipe", "fifo", "sysv-mq",
                                    "posix-mq", "sysv-shm", "file", "file-poll", "shm",
                                    "shm-spin", "shm-futex", "none", "direct", "rest", "grpc",
                                    "thrift-binary", "thrift-compact", "ice", "corba"};
#ifdef IPCLAB_EXPECT_SOAP
  names.push_back("soap");  // only where gSOAP is built in
#else
  EXPECT_FALSE(m.contains("soap"));
#endif
#ifdef IPCLAB_EXPECT_ACTIVEMQ
  names.push_back("activemq");  // only where Qpid Proton C++ is built in (4.7: rr, stream)
#else
  EXPECT_FALSE(m.contains("activemq"));
#endif
#ifdef IPCLAB_EXPECT_ZMQ
  names.insert(names.end(), {"zmq-tcp", "zmq-ipc"});  // only where libzmq is built in (4.8)
#endif
#ifdef IPCLAB_EXPECT_NNG
  names.insert(names.end(), {"nng-tcp", "nng-ipc"});  // only where libnng is built in (4.9)
#endif
#ifdef IPCLAB_EXPECT_HIREDIS
  names.insert(names.end(), {"redis-tcp", "redis-uds"});  // only where hiredis is built in (4.10)
#endif
#ifdef IPCLAB_EXPECT_NATS
  names.push_back("nats");  // only where libnats is built in (4.11)
  EXPECT_EQ(m["nats"]["max_payload"], (64 << 20) - 24);  // the server's max_payload, a header off
#else
  EXPECT_FALSE(m.contains("nats"));
#endif
#ifdef IPCLAB_EXPECT_ICEORYX2  // only where the iceoryx2 binding is built in (4.12: cargo)
  names.insert(names.end(), {"iceoryx2", "iceoryx2-spin"});
  EXPECT_EQ(m["iceoryx2"]["max_payload"], 16 << 20);  // ipclab's cap: 18 samples of a pool
  EXPECT_EQ(m["iceoryx2-spin"]["max_payload"], 16 << 20);
#else
  EXPECT_FALSE(m.contains("iceoryx2"));
  EXPECT_FALSE(m.contains("iceoryx2-spin"));
#endif
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(m.contains(name));
    const std::string n = name;
    // Section 11's table.
    const bool shorts = n == "tcp" || n == "uds" || n == "sysv-mq" || n == "posix-mq";
    const bool streams = shorts || n == "udp" || n == "uds-dgram" || n == "pipe" ||
                         n == "fifo" || n == "sysv-shm" || n.rfind("file", 0) == 0 ||
                         n.rfind("shm", 0) == 0 || n == "grpc" ||  // grpc, rest: 11.3
                         n == "activemq" || n.rfind("zmq-", 0) == 0 ||
                         n.rfind("nng-", 0) == 0 || n.rfind("redis-", 0) == 0 || n == "nats" ||
                         n.rfind("iceoryx2", 0) == 0;
    // tcp also carries burst (11.4) and load (11.5) and names the server models of each; uds
    // carries load only, without epoll-reuseport (AF_UNIX has no SO_REUSEPORT); the message
    // queues carry load over one shared request queue (11.5.5); every RPC framework but soap
    // carries load over its own server configurations (11.5.4).
    const bool rpc_load = n == "rest" || n == "grpc" || n.rfind("thrift", 0) == 0 ||
                          n == "ice" || n == "corba";
    const bool queue_load = n == "sysv-mq" || n == "posix-mq";
    auto patterns = shorts ? all : streams ? stream : n == "rest" ? rr_short : rr;
    if (n == "tcp") patterns.insert(patterns.end(), {"burst", "load"});
    if (n == "uds" || rpc_load || queue_load) patterns.push_back("load");
    EXPECT_EQ(m[name]["patterns"], patterns);
    EXPECT_EQ(m[name].contains("server_models"), n == "tcp");
    EXPECT_EQ(m[name].contains("load_models"),
              n == "tcp" || n == "uds" || rpc_load || queue_load);
    const bool drive_only = std::string(name) == "none" || std::string(name) == "direct";
    EXPECT_EQ(m[name]["roles"], drive_only ? nlohmann::json::array({"drive"})
                                           : nlohmann::json::array({"serve", "drive"}));
  }
  EXPECT_EQ(m.size(), names.size());
  EXPECT_EQ(m["tcp"]["max_payload"], 134217728);
  EXPECT_EQ(m["udp"]["max_payload"], 65483);
  auto uds_models = m["tcp"]["load_models"];
  uds_models.erase(std::find(uds_models.begin(), uds_models.end(), "epoll-reuseport"));
  EXPECT_EQ(m["uds"]["load_models"], uds_models);
  EXPECT_EQ(m["grpc"]["load_models"], nlohmann::json::array({"sync", "callback"}));
  EXPECT_EQ(m["ice"]["load_models"], nlohmann::json::array({"thread-pool-1", "thread-pool-4"}));
  EXPECT_EQ(m["corba"]["load_models"],
            nlohmann::json::array({"thread-per-connection", "thread-pool"}));
  for (const char* queue : {"sysv-mq", "posix-mq"})
    EXPECT_EQ(m[queue]["load_models"], nlohmann::json::array({"iterative", "thread-pool"}));
  EXPECT_FALSE(m.contains("jni"));
}

}  // namespace
}  // namespace ipclab
