// The traffic patterns of PROTOCOL.md section 11: the second table. A pattern is one struct
// with its name and what the command line asks of it (`command_line`, pattern_flags.hpp), and
// one entry in `Patterns` below. rr, stream and short also run over one link (their `run`,
// link_patterns.hpp); burst and load are started by drive() (client.cpp) for a row that has
// what they need. A mechanism's row in mechanisms.cpp names the patterns its client drives.
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "endpoint.hpp"
#include "link_patterns.hpp"
#include "pattern_flags.hpp"

namespace ipclab {

// burst (11.4) is not a pattern over one link: its client makes many connections from many
// threads (burst/client.cpp), started by drive() for a row that has burst sockets. The round
// trips' counts and the stream's sizes are a usage error with it.
struct ConnectionBurst {
  static constexpr std::string_view name = "burst";
  static constexpr std::array<std::string_view, 5> own_flags = {
      "--connections", "--connectors", "--processes", "--records-file", "--release-at"};
  static constexpr std::array<std::string_view, 8> refused_flags = {
      "--message-size", "--messages", "--windows", "--iterations", "--warmup",
      "--warmup-samples-file", "--payload", "--sequence-length"};
  static constexpr PatternFlags command_line = {own_flags, refused_flags, parse_burst_flags};
};

// load (11.5) neither: many persistent connections on a schedule (load/client.cpp), also
// started by drive() for a row that has burst sockets (tcp, uds), whose server models serve it,
// or a queue's load (sysv-mq, posix-mq: load/queues.hpp), or an RPC framework's (11.5.4).
struct OpenLoopLoad {
  static constexpr std::string_view name = "load";
  static constexpr std::array<std::string_view, 7> own_flags = {
      "--clients", "--rate", "--arrival", "--duration-ms", "--warmup-ms", "--records-file",
      "--release-at"};
  static constexpr std::array<std::string_view, 8> refused_flags = {
      "--iterations", "--warmup", "--warmup-samples-file", "--payload", "--sequence-length",
      "--message-size", "--messages", "--windows"};
  static constexpr PatternFlags command_line = {own_flags, refused_flags, parse_load_flags,
                                                /*served_by_model=*/true,
                                                /*shares_request_queue=*/true};
};

// One row of the table: a pattern's name and its command line.
struct PatternRow {
  std::string_view name;
  PatternFlags command_line;
};

// The table: a pattern's struct once here. find() gives the command line a name's row;
// run() runs a pattern over one link by name (false: not a pattern of this table, or not one
// over one link).
template <class... P>
struct PatternTable {
  static constexpr std::array<PatternRow, sizeof...(P)> rows = {
      PatternRow{P::name, P::command_line}...};

  // nullptr: not a pattern of this table.
  static constexpr const PatternRow* find(std::string_view name) {
    for (const PatternRow& row : rows)
      if (row.name == name) return &row;
    return nullptr;
  }

  template <class Link>
  static bool run(std::string_view name, Link& link, const DriveOptions& o, Recorder& r) {
    return ((name == P::name && run_over_link<P>(link, o, r)) || ...);
  }

 private:
  template <class Q, class Link>
  static bool run_over_link(Link& link, const DriveOptions& o, Recorder& r) {
    if constexpr (requires { Q::template run<Link>(link, o, r); }) {
      Q::template run<Link>(link, o, r);
      return true;
    } else {
      return false;
    }
  }
};

using Patterns =
    PatternTable<RequestResponse, OneWayStream, ShortConnections, ConnectionBurst, OpenLoopLoad>;

// The asked pattern over a connected link (every driver of client.cpp, the broker's and
// ZeroMQ's); the table's check makes an unknown name impossible.
template <class Link>
void run_pattern(Link& link, const DriveOptions& o, Recorder& recorder) {
  if (!Patterns::run(o.pattern, link, o, recorder))
    throw PeerError(ErrorKind::unsupported, "pattern '" + o.pattern + "' is not implemented");
}

// The drive hook of a library with one endpoint of its own (redis-*, 4.10: RedisEndpoint; nats,
// 4.11: NatsEndpoint): Link over it, the asked pattern over the link.
template <class Link, class Endpoint>
void drive_over(const DriveOptions& o, Recorder& recorder) {
  Link link(endpoint_as<Endpoint>(o.endpoint), o);
  run_pattern(link, o, recorder);
}

// The drive hook of the libraries whose endpoints have ZeroMQ's grammar (zmq-*, 4.8; nng-*,
// 4.9): Link over the request socket and the stream socket the endpoint names (two tcp://
// URLs, or the sockets at PATH and PATH.stream), the asked pattern over it.
template <class Link>
void drive_two_sockets(const DriveOptions& o, Recorder& recorder) {
  const auto* path = std::get_if<PathEndpoint>(&o.endpoint);
  Link link(path != nullptr ? zmq_ipc_sockets(path->path) : endpoint_as<ZmqEndpoint>(o.endpoint),
            o);
  run_pattern(link, o, recorder);
}

// What the rows of mechanisms.cpp name (section 11's table). Every pattern over one link: rr,
// stream and short (connections or queues opened per message), the start of the lists below.
inline constexpr std::array<std::string_view, 3> kFramePatterns = {
    RequestResponse::name, OneWayStream::name, ShortConnections::name};
// tcp: burst and load too.
inline constexpr std::array<std::string_view, 5> kBurstPatterns = {
    RequestResponse::name, OneWayStream::name, ShortConnections::name, ConnectionBurst::name,
    OpenLoopLoad::name};
// uds: load over its own server models too, but no burst (not asked of it); sysv-mq and
// posix-mq: load over one shared request queue (11.5.5, load/queues.hpp).
inline constexpr std::array<std::string_view, 4> kLoadPatterns = {
    RequestResponse::name, OneWayStream::name, ShortConnections::name, OpenLoopLoad::name};
// Every other frame mechanism: no connection to open per round trip.
inline constexpr std::array<std::string_view, 2> kStreamPatterns = {RequestResponse::name,
                                                                    OneWayStream::name};
// What the in-process calls and most RPC frameworks drive: their own rr loops.
inline constexpr std::array<std::string_view, 1> kRequestResponseOnly = {RequestResponse::name};
// rest (11.3): its rr loop, also over a new HTTP connection per call; and load (11.5.4).
inline constexpr std::array<std::string_view, 3> kRestPatterns = {
    RequestResponse::name, ShortConnections::name, OpenLoopLoad::name};
// grpc: rr, a streaming call (11.3) and load (11.5.4).
inline constexpr std::array<std::string_view, 3> kGrpcPatterns = {
    RequestResponse::name, OneWayStream::name, OpenLoopLoad::name};
// The other RPC frameworks with a load server (11.5.4).
inline constexpr std::array<std::string_view, 2> kRpcLoadPatterns = {RequestResponse::name,
                                                                     OpenLoopLoad::name};

}  // namespace ipclab
