// The one table of mechanisms (PROTOCOL.md sections 4 and 10): every mechanism this peer knows,
// with the endpoint each side takes, the patterns its client drives, its largest payload, and
// how to drive (client) and serve (server) it. The command line, `drive`, `serve` and
// `capabilities` all read it; nothing else lists mechanisms. Adding a kernel mechanism is a
// transport file (transport/) and one row in mechanisms.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "endpoint.hpp"

namespace ipclab {

struct ServeOptions;
struct DriveOptions;
class Recorder;
namespace burst {
struct Sockets;
}
namespace load {
struct Queue;
}

enum class Family {
  frames,  // section 2 frames over a kernel transport (section 4)
  inproc,  // in-process calls, drive only (4.4)
  rpc,     // RPC middleware with its own protocol; structured payloads allowed (10)
  broker,  // section 2 frames as a message broker's messages (4.7), where Proton is built in
  zmq,     // section 2 frames as ZeroMQ messages (4.8), where libzmq is built in
  nng,     // section 2 frames as NNG messages (4.9), where libnng is built in
  redis,   // section 2 frames as Redis list elements (4.10), where hiredis is built in
  nats,    // section 2 frames as NATS messages (4.11), where nats.c is built in
  iceoryx2,  // section 2 frames as iceoryx2 samples (4.12), where the binding is built in
};

struct Mechanism {
  std::string_view name;
  Family family;
  EndpointKind serve_endpoint;  // what `serve --endpoint` takes (unused without serve)
  EndpointKind drive_endpoint;  // what `drive --endpoint` takes
  std::span<const std::string_view> patterns;  // the patterns (section 11) its client drives
  // The largest request or response payload over it on this machine.
  std::uint64_t (*max_payload)();
  // Connects and runs the pattern; throws PeerError.
  void (*drive)(const DriveOptions&, Recorder&);
  // Listens, announces READY and serves until the lifecycle ends the process; throws
  // PeerError. nullptr: drive only.
  void (*serve)(const ServeOptions&);
  bool needs_native_library = false;  // drive needs --native-library
  // burst (11.4), load (11.5): its sockets when its server models serve them
  // (burst/sockets.hpp says which), else nullptr.
  const burst::Sockets* burst = nullptr;
  // load over a message queue (11.5.5): its client and server, else nullptr.
  const load::Queue* queue_load = nullptr;
};

// The mechanisms this build implements, in the table's order (RPC rows only where the
// framework is linked in, see rpc_hooks.hpp).
std::vector<const Mechanism*> implemented_mechanisms();
// The row of an implemented mechanism, or nullptr.
const Mechanism* find_mechanism(std::string_view name);

}  // namespace ipclab
