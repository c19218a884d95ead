// What the command line (section 1) hands to `serve` and `drive`: plain data, already checked.
// The mechanism is a row of the table in mechanisms.hpp and the endpoint is parsed into the
// typed value that row's side takes (endpoint.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "endpoint.hpp"
#include "structs.hpp"

namespace ipclab {

struct Mechanism;  // mechanisms.hpp

// Section 6 and 11.1; stall and capacity:N only for load servers (11.5.1).
enum class Fault { none, flip_response_byte, drop_stream_message, flip_stream_byte, stall, capacity };

// What both roles take.
struct PeerOptions {
  std::string mechanism_name;
  const Mechanism* mechanism = nullptr;  // nullptr: not implemented here (unsupported)
  std::string endpoint_text;
  Endpoint endpoint;  // parsed for implemented mechanisms only
  std::uint64_t seed = 1;
  std::uint64_t poll_interval_us = 2000;
  std::uint64_t spin_us = 50;
  bool nodelay = true;  // --nodelay: TCP_NODELAY on the peer's sockets (tcp, rest, grpc)
  // --delivery (activemq, 4.7): the durable header of every message sent; given at all, it is
  // unsupported for another mechanism (section 1).
  bool persistent = false;
  bool delivery_given = false;
  // --sample-write header (rr over iceoryx2, 4.12): only each REQUEST's and RESPONSE's 24-byte
  // header is written into the loaned sample and checked (iceoryx2's own benchmark); false:
  // full, every byte. Both roles; unsupported over another mechanism (and, drive, pattern).
  bool sample_header_only = false;
};

// --sample-write header for a mechanism other than iceoryx2 and iceoryx2-spin: why it is
// unsupported, or an empty string (the pattern, rr only, is the client's check).
inline std::string sample_write_unsupported(const PeerOptions& o) {
  if (!o.sample_header_only || o.mechanism_name == "iceoryx2" ||
      o.mechanism_name == "iceoryx2-spin")
    return {};
  return "--sample-write header applies to rr over iceoryx2 and iceoryx2-spin only, not " +
         o.mechanism_name;
}

// --delivery for a mechanism other than activemq: why it is unsupported, or an empty string.
inline std::string delivery_unsupported(const PeerOptions& o) {
  if (!o.delivery_given || o.mechanism_name == "activemq") return {};
  return "--delivery applies to activemq only, not " + o.mechanism_name;
}

// --nodelay off: tcp, rest and grpc keep Nagle's algorithm on; elsewhere it is unsupported
// (section 1). Returns why, or an empty string.
inline std::string nodelay_unsupported(const PeerOptions& o) {
  if (o.nodelay || o.mechanism_name == "tcp" || o.mechanism_name == "rest") return {};
  if (o.mechanism_name == "grpc")  // section 10.3: "else unsupported"
    return "--nodelay off: C++ gRPC sets TCP_NODELAY on every socket it opens and has no "
           "channel or server argument to keep Nagle's algorithm on";
  return "--nodelay off applies to tcp, rest and grpc only, not " + o.mechanism_name;
}

struct ServeOptions : PeerOptions {
  Fault fault = Fault::none;
  // --read-size (contract 6): the stream server's message reads ask for at most this many bytes
  // (tcp, uds, pipe, fifo; 11.1); 0: as many as the buffer takes (greedy, as before).
  std::uint32_t read_size = 0;
  // burst (11.4): a server model makes a burst server; empty: the frame server of section 2.
  std::string server_model;
  std::uint64_t connections = 0;
  std::string phases_file;
  // --backlog: the listen() backlog of the burst and load servers' models and (contract 6) of
  // the rr server over tcp and uds. 512 by default (11.2): a client that opens connections
  // faster than the server accepts them waits in the queue instead of losing its SYN (a lost
  // SYN costs a 1 s retransmission, which one-way short connections hit with a backlog of 16).
  std::uint32_t backlog = 512;
  bool backlog_given = false;  // --backlog was on the command line (whatever its value)
  bool nodelay_given = false;  // --nodelay was (11.5.5: a queue's load server refuses it)
  std::uint32_t workers = 0;  // 0: the model's default
  // load (11.5.1): `--pattern load` with a server model serves persistent connections.
  bool load = false;
  std::uint64_t capacity_per_s = 0;  // --fault capacity:N
};

struct DriveOptions : PeerOptions {
  std::uint32_t request_size = 0;
  std::uint32_t response_size = 0;
  std::uint64_t iterations = 0;
  std::string samples_file;
  std::string result_file;
  std::string warmup_samples_file;  // empty: not written
  std::string pattern = "rr";
  // stream (11.1): --message-size, --messages (warm-up messages: --warmup), --windows.
  std::uint32_t message_size = 0;
  std::uint64_t messages = 0;
  std::uint64_t windows = 10;
  std::uint64_t warmup = 0;
  std::int64_t io_timeout_ns = 30'000'000'000;
  std::string native_library;  // direct: path of libipclab_native.so
  PayloadKind payload = PayloadKind::bytes;
  std::uint32_t sequence_length = 5;  // structured payloads only
  // burst (11.4): N connections from T connectors in each of P processes.
  std::uint64_t connections = 0;
  std::uint32_t connectors = 0;
  std::uint32_t processes = 1;
  std::string records_file;
  // --release-at (burst, load): CLOCK_REALTIME ns; 0: the barrier releases, load reads T0 at once
  std::int64_t release_at_ns = 0;
  // load (11.5): C connections, R requests/s on a fixed or poisson schedule of W + D ms.
  std::uint32_t clients = 0;
  std::uint64_t rate = 0;
  bool poisson = false;
  std::uint64_t duration_ms = 0;
  std::uint64_t warmup_ms = 0;
  // Contract 3's study flags (section 1); all off by default.
  bool void_call = false;     // --void: put / putSmall / putMedium / putLarge (10.1)
  bool rest_json = false;     // --rest-body json: {"data": "<base64>"} bodies
  bool corba_string = false;  // --corba-payload string: callString
  bool one_way = false;       // --one-way: short without a RESPONSE (11.2)
  // Contract 6's condition flags (section 1); each default is the behaviour before them.
  bool source_rotate = true;   // --source rotate|one: short over tcp binds 127.1.b.c (11.2)
  ValueRange value_range = ValueRange::full;  // --value-range: how 10.2's ints are drawn
  bool records_per_call = false;  // --records per-call: the next record before each call
  bool mock_new_array = false;    // --mock new-array: none makes a new zeroed array per call
};

// A timeout of ns (--io-timeout) in whole milliseconds, rounded up and capped below INT_MAX:
// what the message libraries' socket options take (ZeroMQ's and NNG's send and receive timeouts).
inline int timeout_ms(std::int64_t ns) {
  const std::int64_t ms = (ns + 999'999) / 1'000'000;
  return ms > 2'000'000'000 ? 2'000'000'000 : static_cast<int>(ms);
}

}  // namespace ipclab
