// ipclab-peer: the C++ peer of PROTOCOL.md.
//
//   ipclab-peer capabilities
//   ipclab-peer serve --mechanism M --endpoint E [--seed S] [--fault F] [--poll-interval-us N]
//   ipclab-peer drive --mechanism M --endpoint E --request-size N --response-size N ...
//
// Where things are:
//   mechanisms.cpp    the table of mechanisms (4, 10)   cli.cpp      command line (section 1)
//   endpoint.cpp      endpoint grammar (4)              frame.cpp    24-byte header (section 2)
//   payload.cpp       splitmix64 payloads (section 3)   transport/   one file per mechanism (4);
//                                                       message.hpp: the 4.1 adapter, file.*: 4.2
//   client.cpp        `drive`: drivers, timing (7)      links.hpp    the client's links (4)
//   patterns.hpp      the table of patterns (11)        server.cpp   `serve`: the family servers
//   responder.cpp     the answer to each frame (2, 11)  result.cpp   READY, result, samples (5, 7)
//   lifecycle.cpp     signals, stdin EOF, cleanup (5)   capabilities.cpp  `capabilities` (1)
//   structs.cpp       structured payloads (10.2)        rpc/         RPC middleware (10): rpc.cpp the
//                                                       shared client loop and service, one file
//                                                       per framework
//   broker/           activemq (4.7) over Qpid Proton C++: amqp_session.cpp (the connection and
//                     its thread), amqp_client.cpp, amqp_server.cpp
//   zmq/              zmq-tcp, zmq-ipc (4.8) over libzmq: zmq_socket.cpp (context, sockets,
//                     options), zmq_client.cpp (the link), zmq_server.cpp
//   nng/              nng-tcp, nng-ipc (4.9) over libnng: nng_socket.cpp (sockets, messages,
//                     options), nng_client.cpp (the link), nng_server.cpp
//   redis/            redis-tcp, redis-uds (4.10) over hiredis: redis_connection.cpp (the
//                     connection, pipelined commands), redis_client.cpp (the link), redis_server.cpp
//   nats/             nats (4.11) over nats.c: nats_connection.cpp (the connection, subscriptions,
//                     messages), nats_client.cpp (the link), nats_server.cpp
//   iceoryx2/         iceoryx2, iceoryx2-spin (4.12) over ipclab's C binding of the iceoryx2
//                     crate (peers/native/iceoryx2/): iceoryx2_side.cpp (the side, its errors),
//                     iceoryx2_client.cpp (the link), iceoryx2_server.cpp
//   burst/            pattern burst (11.4): client.cpp, serving.cpp (what every server model
//                     shares), server_models.cpp (their table), per_connection.cpp, pools.cpp,
//                     event_loop.cpp, io_uring.cpp (the models), exchange.cpp (burst's or
//                     load's exchange per connection), records.cpp (per-connection records and
//                     their CSV files), sockets.cpp
//   load/             pattern load (11.5): schedule.cpp, client.cpp (one epoll loop: tcp, uds),
//                     threaded.cpp (a thread per connection: RPC, queues), queue_client.cpp and
//                     queue_server.cpp (sysv-mq, posix-mq: 11.5.5), report.cpp (records,
//                     samples, figures), faults.cpp (the load servers' test faults)
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "capabilities.hpp"
#include "cli.hpp"
#include "client.hpp"
#include "error.hpp"
#include "result.hpp"
#include "rpc/rpc.hpp"
#ifdef IPCLAB_WITH_PROTON
#include "broker/amqp.hpp"
#endif
#ifdef IPCLAB_WITH_ZMQ
#include "zmq/zmq_socket.hpp"
#endif
#ifdef IPCLAB_WITH_NNG
#include "nng/nng_socket.hpp"
#endif
#ifdef IPCLAB_WITH_HIREDIS
#include "redis/redis_connection.hpp"
#endif
#ifdef IPCLAB_WITH_NATS
#include "nats/nats_connection.hpp"
#endif
#ifdef IPCLAB_WITH_ICEORYX2
#include "iceoryx2/iceoryx2_side.hpp"
#endif
#include "server.hpp"

namespace {

int run(const ipclab::Command& command) {
  using namespace ipclab;
  if (const auto* serve = std::get_if<ServeOptions>(&command)) return run_serve(*serve);
  if (const auto* drive = std::get_if<DriveOptions>(&command)) return run_drive(*drive);
  const std::string answer = capabilities_json();
  return std::fwrite(answer.data(), 1, answer.size(), stdout) == answer.size() &&
                 std::fflush(stdout) == 0
             ? 0
             : exit_code(ErrorKind::io);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ipclab;
  rpc::install();
#ifdef IPCLAB_WITH_PROTON
  broker::install();  // activemq (4.7), where the build found Qpid Proton C++
#endif
#ifdef IPCLAB_WITH_ZMQ
  zeromq::install();  // zmq-tcp, zmq-ipc (4.8), where the build found libzmq
#endif
#ifdef IPCLAB_WITH_NNG
  nanomsg::install();  // nng-tcp, nng-ipc (4.9), where the build found libnng
#endif
#ifdef IPCLAB_WITH_HIREDIS
  redis::install();  // redis-tcp, redis-uds (4.10), where the build found hiredis
#endif
#ifdef IPCLAB_WITH_NATS
  nats::install();  // nats (4.11), where the build found libnats
#endif
#ifdef IPCLAB_WITH_ICEORYX2
  iceoryx2::install();  // iceoryx2, iceoryx2-spin (4.12), where the build found cargo
#endif
  const std::vector<std::string> args(argv + 1, argv + argc);
  Command command;
  try {
    command = parse_command_line(args);
  } catch (const UsageError& e) {
    print_line(std::string("usage: ") + e.what());
    return exit_code(ErrorKind::usage);
  }
  try {
    return run(command);
  } catch (const std::exception& e) {
    print_line(std::string("internal: ") + e.what());
    return exit_code(ErrorKind::internal);
  }
}
