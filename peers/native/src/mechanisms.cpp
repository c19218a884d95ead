// The table of mechanisms. A row: name, family, the endpoint kind of `serve` and of `drive`,
// the patterns its client drives, its largest payload, then how a client connects (and which
// driver of client.hpp runs over it) and how a server sets up (and which server of server.hpp
// serves it). A kernel mechanism is a transport (transport/) plus one row here.
#include "mechanisms.hpp"

#include "broker_hooks.hpp"
#include "burst/sockets.hpp"
#include "client.hpp"
#include "frame.hpp"
#include "load/queues.hpp"
#include "options.hpp"
#include "patterns.hpp"
#include "rpc_hooks.hpp"
#include "server.hpp"
#include "redis_hooks.hpp"
#include "nats_hooks.hpp"
#include "iceoryx2_hooks.hpp"
#include "zmq_hooks.hpp"
#include "nng_hooks.hpp"
#include "transport/message.hpp"
#include "transport/transport.hpp"

namespace ipclab {

namespace {

using Kind = EndpointKind;
using Drive = const DriveOptions&;
using Serve = const ServeOptions&;

template <class E, class Options>
const E& at(const Options& o) {
  return endpoint_as<E>(o.endpoint);
}

std::uint64_t any_size() { return kMaxPayload; }
std::uint64_t udp_size() { return kUdpMaxPayload; }
std::uint64_t uds_dgram_size() { return uds_dgram_max_payload(); }
// A NATS message is at most the server's max_payload, 64 MiB, NATS's cap (4.11): a frame's
// header and its payload.
std::uint64_t nats_size() { return (64ull << 20) - kHeaderSize; }
// ipclab caps an iceoryx2 payload at 16 MiB (4.12): a publisher's pool holds up to 18 samples of
// its largest frame.
std::uint64_t iceoryx2_size() { return 16ull << 20; }

template <ShmWait wait>
void drive_shm(Drive o, Recorder& r) {
  auto channel = open_posix_shm(at<PosixNameEndpoint>(o), wait, o.spin_us, o.io_timeout_ns);
  drive_messages(std::move(channel), false, o, r);
}
template <ShmWait wait>
void serve_shm(Serve o) {
  serve_messages(create_posix_shm(wait, o.spin_us), o);
}

// RPC rows go through the hooks main() installs (rpc_hooks.hpp).
void drive_rpc(Drive o, Recorder& r) { rpc_hooks().drive(o, r); }
void serve_rpc(Serve o) { rpc_hooks().serve(o); }
// The broker's row likewise (broker_hooks.hpp).
void drive_broker(Drive o, Recorder& r) { broker_hooks().drive(o, r); }
void serve_broker(Serve o) { broker_hooks().serve(o); }
// And ZeroMQ's (zmq_hooks.hpp).
void drive_zmq(Drive o, Recorder& r) { zmq_hooks().drive(o, r); }
void serve_zmq(Serve o) { zmq_hooks().serve(o); }
// And NNG's (nng_hooks.hpp).
void drive_nng(Drive o, Recorder& r) { nng_hooks().drive(o, r); }
void serve_nng(Serve o) { nng_hooks().serve(o); }
// And Redis's (redis_hooks.hpp).
void drive_redis(Drive o, Recorder& r) { redis_hooks().drive(o, r); }
void serve_redis(Serve o) { redis_hooks().serve(o); }
// And NATS's (nats_hooks.hpp).
void drive_nats(Drive o, Recorder& r) { nats_hooks().drive(o, r); }
void serve_nats(Serve o) { nats_hooks().serve(o); }
// And iceoryx2's (iceoryx2_hooks.hpp).
void drive_iceoryx2(Drive o, Recorder& r) { iceoryx2_hooks().drive(o, r); }
void serve_iceoryx2(Serve o) { iceoryx2_hooks().serve(o); }

constexpr Family frames = Family::frames;
constexpr Family rpc = Family::rpc;

constexpr Mechanism kMechanisms[] = {
    // Also burst (11.4): its sockets are the row's last field.
    {"tcp", frames, Kind::inet, Kind::inet, kBurstPatterns, any_size,
     [](Drive o, Recorder& r) {
       const auto& e = at<InetEndpoint>(o);
       drive_stream(connect_tcp(e, o.nodelay), o, r,
                    tcp_connector(e, o.nodelay, o.source_rotate));
     },
     [](Serve o) {
       const auto backlog = static_cast<int>(o.backlog);
       serve_streams(listen_tcp(at<InetEndpoint>(o), o.nodelay, backlog), o);
     },
     false,
     &burst::kTcpSockets},
    {"udp", frames, Kind::inet, Kind::inet, kStreamPatterns, udp_size,
     [](Drive o, Recorder& r) { drive_datagrams(connect_udp(at<InetEndpoint>(o)), o, r); },
     [](Serve o) { serve_datagrams(bind_udp(at<InetEndpoint>(o)), o); }},
    // Also load (11.5), not burst: its sockets say so.
    {"uds", frames, Kind::path, Kind::path, kLoadPatterns, any_size,
     [](Drive o, Recorder& r) {
       const auto& e = at<PathEndpoint>(o);
       drive_stream(connect_uds(e), o, r, uds_connector(e));
     },
     [](Serve o) {
       serve_streams(listen_uds(at<PathEndpoint>(o), static_cast<int>(o.backlog)), o);
     },
     false,
     &burst::kUdsSockets},
    {"uds-dgram", frames, Kind::path, Kind::path, kStreamPatterns, uds_dgram_size,
     [](Drive o, Recorder& r) { drive_datagrams(connect_uds_dgram(at<PathEndpoint>(o)), o, r); },
     [](Serve o) { serve_datagrams(bind_uds_dgram(at<PathEndpoint>(o)), o); }},
    {"pipe", frames, Kind::fds, Kind::fds, kStreamPatterns, any_size,
     [](Drive o, Recorder& r) { drive_stream(open_pipe_client(at<FdEndpoint>(o)), o, r); },
     [](Serve o) { serve_streams(serve_pipe(at<FdEndpoint>(o)), o); }},
    {"fifo", frames, Kind::dir, Kind::dir, kStreamPatterns, any_size,
     [](Drive o, Recorder& r) { drive_stream(open_fifo_client(at<DirEndpoint>(o)), o, r); },
     [](Serve o) { serve_streams(create_fifos(at<DirEndpoint>(o)), o); }},
    // Untimed queue calls: --io-timeout through the timer (true). Also load (11.5.5): one
    // request queue shared by every client, its client and server the row's last field.
    {"sysv-mq", frames, Kind::automatic, Kind::sysv_key, kLoadPatterns, any_size,
     [](Drive o, Recorder& r) { drive_messages(open_sysv_mq(at<KeyEndpoint>(o)), true, o, r); },
     [](Serve o) { serve_messages(create_sysv_mq(), o); }, false, nullptr, &load::kSysvMqLoad},
    {"posix-mq", frames, Kind::automatic, Kind::posix_name, kLoadPatterns, any_size,
     [](Drive o, Recorder& r) {
       drive_messages(open_posix_mq(at<PosixNameEndpoint>(o)), true, o, r);
     },
     [](Serve o) { serve_messages(create_posix_mq(), o); }, false, nullptr,
     &load::kPosixMqLoad},
    {"sysv-shm", frames, Kind::automatic, Kind::sysv_key, kStreamPatterns, any_size,
     [](Drive o, Recorder& r) {
       drive_messages(open_sysv_shm(at<KeyEndpoint>(o), o.io_timeout_ns), false, o, r);
     },
     [](Serve o) { serve_messages(create_sysv_shm(), o); }},
    {"file", frames, Kind::dir, Kind::dir, kStreamPatterns, any_size,
     [](Drive o, Recorder& r) { drive_files(at<DirEndpoint>(o), false, o, r); },
     [](Serve o) { serve_files(at<DirEndpoint>(o), false, o); }},
    {"file-poll", frames, Kind::dir, Kind::dir, kStreamPatterns, any_size,
     [](Drive o, Recorder& r) { drive_files(at<DirEndpoint>(o), true, o, r); },
     [](Serve o) { serve_files(at<DirEndpoint>(o), true, o); }},
    // Section 4.3: one shared-memory hand-off, three ways to wait.
    {"shm", frames, Kind::automatic, Kind::posix_name, kStreamPatterns, any_size,
     drive_shm<ShmWait::hybrid>, serve_shm<ShmWait::hybrid>},
    {"shm-spin", frames, Kind::automatic, Kind::posix_name, kStreamPatterns, any_size,
     drive_shm<ShmWait::spin>, serve_shm<ShmWait::spin>},
    {"shm-futex", frames, Kind::automatic, Kind::posix_name, kStreamPatterns, any_size,
     drive_shm<ShmWait::futex>, serve_shm<ShmWait::futex>},
    // Section 4.4: drive only.
    {"none", Family::inproc, Kind::inproc, Kind::inproc, kRequestResponseOnly, any_size,
     [](Drive o, Recorder& r) { drive_calls(nullptr, o, r); }, nullptr},
    {"direct", Family::inproc, Kind::inproc, Kind::inproc, kRequestResponseOnly, any_size,
     [](Drive o, Recorder& r) { drive_calls(load_ipclab_call(o.native_library), o, r); }, nullptr,
     /*needs_native_library=*/true},
    // Section 10: the frameworks' own protocols (rpc/).
    // rest: also short (a new connection per call); grpc: also stream (a streaming call), 11.3;
    // all but soap: load over their own server configurations (11.5.4, rpc/rpc.cpp).
    {"rest", rpc, Kind::inet, Kind::inet, kRestPatterns, any_size, drive_rpc, serve_rpc},
    {"grpc", rpc, Kind::inet, Kind::inet, kGrpcPatterns, any_size, drive_rpc, serve_rpc},
    {"thrift-binary", rpc, Kind::inet, Kind::inet, kRpcLoadPatterns, any_size, drive_rpc,
     serve_rpc},
    {"thrift-compact", rpc, Kind::inet, Kind::inet, kRpcLoadPatterns, any_size, drive_rpc,
     serve_rpc},
    {"ice", rpc, Kind::inet, Kind::inet, kRpcLoadPatterns, any_size, drive_rpc, serve_rpc},
    // The server listens on HOST:PORT; the client takes the server's stringified IOR.
    {"corba", rpc, Kind::inet, Kind::ior, kRpcLoadPatterns, any_size, drive_rpc, serve_rpc},
    // gSOAP, where the build found it (cmake/rpc.cmake); without it the row is not implemented.
    {"soap", rpc, Kind::inet, Kind::inet, kRequestResponseOnly, any_size, drive_rpc, serve_rpc},
    // Section 4.7: an ActiveMQ broker over AMQP 1.0 (Qpid Proton C++, broker/), where the build
    // found Proton; the responder takes the broker, the client the responder's queue on it.
    {"activemq", Family::broker, Kind::amqp_broker, Kind::amqp_queue, kStreamPatterns, any_size,
     drive_broker, serve_broker},
    // Section 4.8: ZeroMQ (libzmq, zmq/), where the build found it. zmq-tcp's server binds
    // HOST:PORT and READY names its two sockets; zmq-ipc's binds PATH and PATH.stream.
    {"zmq-tcp", Family::zmq, Kind::inet, Kind::zmq_tcp, kStreamPatterns, any_size, drive_zmq,
     serve_zmq},
    {"zmq-ipc", Family::zmq, Kind::path, Kind::path, kStreamPatterns, any_size, drive_zmq,
     serve_zmq},
    // Section 4.9: NNG (libnng, nng/), where the build found it. Its endpoints are ZeroMQ's:
    // nng-tcp's READY names its two sockets as tcp:// URLs; nng-ipc's are PATH and PATH.stream.
    {"nng-tcp", Family::nng, Kind::inet, Kind::zmq_tcp, kStreamPatterns, any_size, drive_nng,
     serve_nng},
    {"nng-ipc", Family::nng, Kind::path, Kind::path, kStreamPatterns, any_size, drive_nng,
     serve_nng},
    // Section 4.10: Redis lists through a Redis server (hiredis, redis/), where the build found
    // hiredis; both peers take the server and the round's key name.
    {"redis-tcp", Family::redis, Kind::redis_tcp, Kind::redis_tcp, kStreamPatterns, any_size,
     drive_redis, serve_redis},
    {"redis-uds", Family::redis, Kind::redis_uds, Kind::redis_uds, kStreamPatterns, any_size,
     drive_redis, serve_redis},
    // Section 4.11: NATS messages through a NATS server (nats.c, nats/), where the build found
    // libnats; both peers take the server and the round's subject name.
    {"nats", Family::nats, Kind::nats, Kind::nats, kStreamPatterns, nats_size, drive_nats,
     serve_nats},
    // Section 4.12: iceoryx2's publish-subscribe (ipclab's C binding of the Rust crate,
    // iceoryx2/), where the build found cargo. The server takes its directory (iceoryx2's root
    // path); READY and the client name its shared-memory prefix and the directory.
    {"iceoryx2", Family::iceoryx2, Kind::dir, Kind::posix_dir, kStreamPatterns, iceoryx2_size,
     drive_iceoryx2, serve_iceoryx2},
    {"iceoryx2-spin", Family::iceoryx2, Kind::dir, Kind::posix_dir, kStreamPatterns,
     iceoryx2_size, drive_iceoryx2, serve_iceoryx2},
};

bool implemented(const Mechanism& m) {
  if (m.family == Family::broker) return broker_hooks().drive != nullptr;
  if (m.family == Family::zmq) return zmq_hooks().drive != nullptr;
  if (m.family == Family::nng) return nng_hooks().drive != nullptr;
  if (m.family == Family::redis) return redis_hooks().drive != nullptr;
  if (m.family == Family::nats) return nats_hooks().drive != nullptr;
  if (m.family == Family::iceoryx2) return iceoryx2_hooks().drive != nullptr;
  if (m.family != Family::rpc) return true;
  const RpcHooks& hooks = rpc_hooks();
  return hooks.supports != nullptr && hooks.supports(m.name);
}

}  // namespace

std::vector<const Mechanism*> implemented_mechanisms() {
  std::vector<const Mechanism*> out;
  for (const Mechanism& m : kMechanisms)
    if (implemented(m)) out.push_back(&m);
  return out;
}

const Mechanism* find_mechanism(std::string_view name) {
  for (const Mechanism& m : kMechanisms)
    if (m.name == name) return implemented(m) ? &m : nullptr;
  return nullptr;
}

}  // namespace ipclab
