// The endpoints of PROTOCOL.md section 4, parsed once (by the command line, for the kind the
// mechanism table names) into typed values. Transports receive these and never parse strings.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

namespace ipclab {

// What a side's --endpoint is, per the table of section 4.
enum class EndpointKind {
  inet,        // HOST:PORT ([v6]:PORT allowed): tcp, udp, the RPC servers and most RPC clients
  path,        // a socket path: uds, uds-dgram
  fds,         // fd:R,W: pipe
  dir,         // a directory: fifo, file, file-poll
  automatic,   // the word auto: a message-channel server names its own kernel objects
  sysv_key,    // sysv:0x<hex key>[,0x<hex key>]: sysv-mq (two: load), sysv-shm clients
  posix_name,  // posix:/<name prefix>: posix-mq and shm clients
  inproc,      // the word inproc: in-process calls (section 4.4)
  ior,         // IOR:...: the corba client (10.3)
  amqp_broker,  // amqp://HOST:PORT: the activemq responder (4.7)
  amqp_queue,   // amqp://HOST:PORT/QUEUE: the activemq client (4.7)
  zmq_tcp,      // tcp://HOST:P1,tcp://HOST:P2: the zmq-tcp client (4.8), nng-tcp's (4.9)
  redis_tcp,    // redis://HOST:PORT/NAME: both redis-tcp peers (4.10)
  redis_uds,    // unix://PATH#NAME: both redis-uds peers (4.10)
  nats,         // nats://HOST:PORT/NAME: both nats peers (4.11)
  posix_dir,    // posix:/<name prefix>,DIR: the iceoryx2 clients (4.12)
};

struct InetEndpoint {
  std::string host;
  std::uint16_t port = 0;
};
struct PathEndpoint {
  std::string path;
};
struct FdEndpoint {
  int read_fd = -1;
  int write_fd = -1;
};
struct DirEndpoint {
  std::string path;
};
struct AutoEndpoint {};
struct KeyEndpoint {
  std::int32_t key = 0;  // never 0 (IPC_PRIVATE)
  // Load over sysv-mq (11.5.5) names two queues, "sysv:K,K|0x8000": the reply queue's key; 0
  // for the one key everything else takes.
  std::int32_t reply_key = 0;
};
struct PosixNameEndpoint {
  std::string prefix;  // "/ipclab-123": one leading slash, no other
};
struct InprocEndpoint {};
struct IorEndpoint {
  std::string ior;
};
struct AmqpEndpoint {
  std::string url;    // amqp://HOST:PORT, as Proton connects to it
  std::string queue;  // the client's request queue; empty for the responder
};

// The two sockets of a ZeroMQ server (4.8) as the library addresses them: its request socket
// (REP) and its stream socket (PULL).
struct ZmqEndpoint {
  std::string requests;  // tcp://HOST:PORT or ipc://PATH
  std::string stream;
};

// A Redis server and the key name of a round on it (4.10): TCP (host, port) or a Unix socket's
// path; `text` is the endpoint as given (READY's).
struct RedisEndpoint {
  std::string host;  // empty: a Unix socket at path
  std::uint16_t port = 0;
  std::string path;
  std::string name;
  std::string text;
};

// A NATS server and the subject name of a round on it (4.11): `server` is nats://HOST:PORT, the
// library's URL, at `address`; `text` is the endpoint as given (READY's).
struct NatsEndpoint {
  std::string server;
  InetEndpoint address;
  std::string name;
  std::string text;
};

// A server's shared-memory name prefix and its directory (iceoryx2, 4.12: the prefix of the
// library's objects in /dev/shm and its root path).
struct PosixDirEndpoint {
  std::string prefix;  // "/ipclab-123": one leading slash, no other
  std::string dir;
};

using Endpoint = std::variant<std::monostate, InetEndpoint, PathEndpoint, FdEndpoint, DirEndpoint,
                              AutoEndpoint, KeyEndpoint, PosixNameEndpoint, InprocEndpoint,
                              IorEndpoint, AmqpEndpoint, ZmqEndpoint, RedisEndpoint,
                              NatsEndpoint, PosixDirEndpoint>;

// Parses text as an endpoint of this kind; a mistake is a UsageError ("bad value for
// --endpoint: ...").
Endpoint parse_endpoint(EndpointKind kind, const std::string& text);

// The grammar of each kind, for parse_endpoint and the tests.
InetEndpoint parse_inet(const std::string& text);
FdEndpoint parse_fds(const std::string& text);
KeyEndpoint parse_sysv_key(const std::string& text);
PosixNameEndpoint parse_posix_name(const std::string& text);
// amqp://HOST:PORT, and /QUEUE after it when with_queue (a non-empty name without a slash).
AmqpEndpoint parse_amqp(const std::string& text, bool with_queue);
// tcp://HOST:PORT,tcp://HOST:PORT (zmq-tcp's READY, 4.8).
ZmqEndpoint parse_zmq_tcp(const std::string& text);
// zmq-ipc's sockets at PATH (4.8): ipc://PATH and ipc://PATH.stream.
ZmqEndpoint zmq_ipc_sockets(const std::string& path);
// redis://HOST:PORT/NAME (tcp) or unix://PATH#NAME (4.10).
RedisEndpoint parse_redis(const std::string& text, bool tcp);
// nats://HOST:PORT/NAME (4.11).
NatsEndpoint parse_nats(const std::string& text);
// posix:/<name>,DIR (4.12): the name as parse_posix_name takes it, then a directory.
PosixDirEndpoint parse_posix_dir(const std::string& text);

// The endpoint of a parsed option, as the kind its mechanism's table row promises.
template <class E>
const E& endpoint_as(const Endpoint& e) {
  return std::get<E>(e);
}

// "HOST:PORT" ("[v6]:PORT" for a host with a colon), as READY and the RPC frameworks write it.
std::string to_string(const InetEndpoint& e);

}  // namespace ipclab
