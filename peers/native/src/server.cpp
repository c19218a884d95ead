#include "server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <initializer_list>
#include <map>
#include <span>
#include <string_view>

#include "burst/server_models.hpp"
#include "error.hpp"
#include "frame.hpp"
#include "lifecycle.hpp"
#include "load/queues.hpp"
#include "mechanisms.hpp"
#include "result.hpp"
#include "rpc_hooks.hpp"
#include "server_common.hpp"

namespace ipclab {

namespace {

constexpr auto kind_of(const Header& h) noexcept { return static_cast<FrameKind>(h.kind); }

}  // namespace

// ---- the servers ------------------------------------------------------------------------------

ServerConfig config_of(const ServeOptions& o) {
  ServerConfig config;
  config.seed = o.seed;
  config.flip_response_byte = o.fault == Fault::flip_response_byte;
  config.stream_fault = stream_fault_of(o.fault);
  return config;
}

void report_rejected(const char* reason) {
  print_line(std::string("rejected frame: ") + reason);
}

namespace {

// Why a received datagram is not a frame this server takes, or nullptr (udp, uds-dgram).
const char* check_datagram(const std::uint8_t* buf, std::size_t n, std::size_t capacity,
                           std::uint32_t max_payload, Header& h) {
  if (n < kHeaderSize) return "truncated header";
  h = decode_header(buf);
  if (const char* reason = check_request_header(h)) return reason;
  if (n != kHeaderSize + h.length) return "length mismatch";
  if (h.flags != 0) return "bad flags";  // one-way (NO_REPLY) is pattern short's, not here
  if (n > capacity) return "length too large";  // more than this side carries: it was cut
  if (h.kind == static_cast<std::uint8_t>(FrameKind::request) && h.wanted > max_payload)
    return "length too large";  // the response could not be one datagram
  return nullptr;
}

// Whether a datagram is a control frame of a udp stream (11.1): a well-formed MARK or END header
// (magic, version 1, kind, wanted 0, its size 24 + length). Everything else is a message.
bool control_datagram(const std::uint8_t* buf, std::size_t n) {
  if (n < kHeaderSize) return false;
  const Header h = decode_header(buf);
  const auto kind = kind_of(h);
  return std::memcmp(h.magic, kMagic, 4) == 0 && h.version == kVersion &&
         (kind == FrameKind::mark || kind == FrameKind::end) && h.wanted == 0 &&
         n == kHeaderSize + h.length;
}

// udp loses datagrams (its stream server cannot count messages); uds-dgram never does.
bool loses_datagrams(int fd) {
  int domain = AF_UNIX;
  socklen_t len = sizeof domain;
  ::getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len);
  return domain != AF_UNIX;
}

// A datagram of the stream a MARK started, if it is one (11.1): uds-dgram's next `count`
// datagrams are messages (another size: rejected, the rest of the count given up, so what
// follows is read as frames and END's answer shows the shortfall); on udp every datagram but a
// control frame is, until END (another size: a gap). False: it is a frame.
bool take_stream_datagram(Responder& responder, bool lossy, const std::uint8_t* buf,
                          std::size_t n) {
  if (lossy ? !responder.streaming() || control_datagram(buf, n) : responder.pending() == 0)
    return false;
  if (n == responder.message_size()) {
    responder.message(buf);
  } else if (lossy) {
    responder.odd_datagram();
  } else {
    report_rejected("length mismatch");
    responder.give_up_announced();
  }
  return true;
}

}  // namespace

// Datagram mechanisms (udp, uds-dgram): one datagram per frame or stream message, answered to
// its source. END and END_ACK count corrupted requests per client address.
void serve_datagrams(DatagramSocket socket, const ServeOptions& o) {
  announce_ready(socket.endpoint(), o.mechanism_name);
  ServerConfig config = config_of(o);
  config.max_message = kHeaderSize + std::uint64_t{socket.max_payload()};  // udp 65507, D
  Responder responder(config);
  const int fd = socket.fd();
  const bool lossy = loses_datagrams(fd);
  const std::size_t capacity = socket.receive_buffer();
  auto buf = std::make_unique_for_overwrite<std::uint8_t[]>(capacity);
  std::map<std::string, std::uint64_t> corrupted;  // per client address, since its last END
  for (;;) {
    sockaddr_storage from{};
    socklen_t from_len = sizeof from;
    const ssize_t r = ::recvfrom(fd, buf.get(), capacity, MSG_TRUNC,
                                 reinterpret_cast<sockaddr*>(&from), &from_len);
    if (r < 0) {
      if (errno == EINTR || errno == ECONNREFUSED) continue;
      throw_io("recvfrom");
    }
    const auto n = static_cast<std::size_t>(r);
    if (take_stream_datagram(responder, lossy, buf.get(), n)) continue;
    const auto* to = reinterpret_cast<const sockaddr*>(&from);
    const auto client = [&] { return std::string(reinterpret_cast<const char*>(&from), from_len); };
    Header h{};
    const char* reason = check_datagram(buf.get(), n, capacity, socket.max_payload(), h);
    if (reason == nullptr) reason = responder.check(h, buf.get() + kHeaderSize);
    if (reason != nullptr) {
      report_rejected(reason);
      continue;
    }
    // The count per address is looked up only for END (no string per REQUEST).
    std::uint64_t count = 0;
    const auto it = kind_of(h) == FrameKind::end ? corrupted.find(client()) : corrupted.end();
    if (it != corrupted.end()) count = it->second;
    const std::uint8_t* payload = buf.get() + kHeaderSize;
    const Responder::Answer a = responder.answer(h, payload, count);
    if (it != corrupted.end()) corrupted.erase(it);
    if (a.size != 0 && ::sendto(fd, a.data, a.size, 0, to, from_len) < 0)
      print_line(std::string("io: sendto: ") + std::strerror(errno));
    if (responder.after_send(h, payload)) ++corrupted[client()];
  }
}

WholeFrameServer::WholeFrameServer(const ServeOptions& o) : responder_(config_of(o)) {}

Responder::Answer WholeFrameServer::take(const std::uint8_t* unit, std::size_t n) {
  if (take_stream_datagram(responder_, false, unit, n)) return {nullptr, 0};
  const char* reason = check_datagram(unit, n, SIZE_MAX, kMaxPayload, header_);
  if (reason == nullptr) reason = responder_.check(header_, unit + kHeaderSize);
  if (reason != nullptr) {
    report_rejected(reason);
    return {nullptr, 0};
  }
  payload_ = unit + kHeaderSize;
  return responder_.answer(header_, payload_, corrupted_);
}

void serve_streams(std::unique_ptr<StreamServer> server, const ServeOptions& o) {
  announce_ready(server->endpoint(), o.mechanism_name);
  StreamConnectionHandler handler(config_of(o), o.read_size);
  Stream stream;
  while (server->next_client(stream)) {
    const ConnectionOutcome out = handler.serve(stream);
    stream.close();
    int code = 0;
    if (out.end == ConnectionOutcome::End::rejected) {
      report_rejected(out.detail.c_str());
      code = exit_code(ErrorKind::protocol);
    } else if (out.end == ConnectionOutcome::End::io_error) {
      print_line("io: " + out.detail);
      code = exit_code(ErrorKind::io);
    }
    if (server->single_client()) exit_process(code);
  }
  exit_process(0);
}

namespace {

// An RPC load server (11.5.4) is the framework's own server in one of its configurations: why
// these options are not one, or an empty string.
std::string rpc_load_unsupported(const ServeOptions& o) {
  if (!o.load) return "burst (11.4) is not served over " + o.mechanism_name;
  if (o.workers != 0 || o.backlog_given)
    return "--workers and --backlog are not used by an RPC framework's own server (11.5.4)";
  const auto models = rpc_hooks().load_models != nullptr
                          ? rpc_hooks().load_models(o.mechanism_name)
                          : std::span<const std::string_view>{};
  std::string names;
  for (const std::string_view m : models) {
    if (m == o.server_model) return {};
    names += (names.empty() ? "" : ", ") + std::string(m);
  }
  return "server model '" + o.server_model + "' is not one of " + o.mechanism_name + "'s (" +
         (names.empty() ? "none: no load over it" : names) + ")";
}

bool is_one_of(const std::string& name, std::initializer_list<std::string_view> names) {
  for (const std::string_view n : names)
    if (name == n) return true;
  return false;
}

// Contract 6's serve flags where this server cannot honour them: why, or an empty string. The
// burst and load servers check --backlog themselves (their models take it, 11.4, 11.5).
std::string conditions_unsupported(const ServeOptions& o) {
  if (o.read_size != 0 && (!o.server_model.empty() ||
                           !is_one_of(o.mechanism_name, {"tcp", "uds", "pipe", "fifo"})))
    return "--read-size applies to the stream server of tcp, uds, pipe and fifo (11.1), not " +
           (o.server_model.empty() ? o.mechanism_name : "a --server-model server");
  if (o.backlog_given && o.server_model.empty() && !is_one_of(o.mechanism_name, {"tcp", "uds"}))
    return "--backlog: the server of " + o.mechanism_name + " has no listen() backlog (tcp and "
           "uds only)";
  return {};
}

}  // namespace

int run_serve(const ServeOptions& o) {
  for (const std::string& why :
       {nodelay_unsupported(o), delivery_unsupported(o), sample_write_unsupported(o),
        conditions_unsupported(o)}) {
    if (why.empty()) continue;
    print_line("unsupported: " + why);
    return exit_code(ErrorKind::unsupported);
  }
  if (!o.server_model.empty() && o.mechanism != nullptr && o.mechanism->family == Family::rpc) {
    if (const std::string why = rpc_load_unsupported(o); !why.empty()) {
      print_line("unsupported: " + why);
      return exit_code(ErrorKind::unsupported);
    }
  } else if (o.load && o.mechanism != nullptr && o.mechanism->queue_load != nullptr) {
    return load::serve_queue(*o.mechanism->queue_load, o);  // 11.5.5
  } else if (!o.server_model.empty()) {
    return burst::run_burst_server(o);  // 11.4, 11.5
  }
  if (o.fault == Fault::stall || o.fault == Fault::capacity) {
    print_line("unsupported: --fault stall and capacity:N are for load servers (11.5.1)");
    return exit_code(ErrorKind::unsupported);
  }
  // Decided before the lifecycle starts: otherwise an stdin already at end of file could end the
  // server with exit 0 before it reports this.
  if (o.mechanism == nullptr) {
    print_line("unsupported: mechanism '" + o.mechanism_name + "' is not implemented");
    return exit_code(ErrorKind::unsupported);
  }
  if (o.mechanism->serve == nullptr) {
    print_line("unsupported: mechanism '" + o.mechanism_name +
               "' is drive only (an in-process call has no server)");
    return exit_code(ErrorKind::unsupported);
  }
  install_server_lifecycle();
  try {
    o.mechanism->serve(o);
    throw PeerError(ErrorKind::internal, "the server of " + o.mechanism_name + " returned");
  } catch (const PeerError& e) {
    print_line(std::string(kind_name(e.kind())) + ": " + e.what());
    exit_process(exit_code(e.kind()));
  } catch (const std::exception& e) {
    print_line(std::string("internal: ") + e.what());
    exit_process(exit_code(ErrorKind::internal));
  }
}

}  // namespace ipclab
