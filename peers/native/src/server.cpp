#include "server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "burst/server_models.hpp"
#include "error.hpp"
#include "frame.hpp"
#include "lifecycle.hpp"
#include "mechanisms.hpp"
#include "result.hpp"

namespace ipclab {

// ---- stream connections ---------------------------------------------------------------------

namespace {

constexpr auto kind_of(const Header& h) noexcept { return static_cast<FrameKind>(h.kind); }

constexpr std::size_t kInitialBuffer = 64 * 1024;

// A buffer that keeps its first `keep` bytes and grows to hold at least `need` (only ever after
// a valid header: a malformed frame never makes it allocate).
void ensure_capacity(std::unique_ptr<std::uint8_t[]>& buf, std::size_t& capacity,
                     std::size_t need, std::size_t keep) {
  if (capacity >= need) return;
  auto bigger = std::make_unique_for_overwrite<std::uint8_t[]>(need);
  std::memcpy(bigger.get(), buf.get(), keep);
  buf = std::move(bigger);
  capacity = need;
}

}  // namespace

StreamConnectionHandler::StreamConnectionHandler(const ServerConfig& config)
    : responder_(config),
      buf_(std::make_unique_for_overwrite<std::uint8_t[]>(kInitialBuffer)),
      capacity_(kInitialBuffer) {}

ConnectionOutcome StreamConnectionHandler::serve(Stream& stream) {
  ConnectionOutcome out;
  std::size_t start = 0, end = 0;  // unconsumed bytes are buf_[start, end)
  const auto reject = [this, &out](const char* reason) {
    out.end = ConnectionOutcome::End::rejected;
    out.detail = reason;
    corrupted_ = 0;
    responder_.stream_over();
    return out;
  };
  try {
    for (;;) {
      // Header: read as much as the kernel has (normally the whole frame in one call).
      while (end - start < kHeaderSize) {
        if (start > 0) {
          std::memmove(buf_.get(), buf_.get() + start, end - start);
          end -= start;
          start = 0;
        }
        const std::size_t n = stream.read_some(buf_.get() + end, capacity_ - end);
        if (n == 0) {
          if (end != start) return reject("truncated header");
          responder_.stream_over();
          return out;  // clean close between frames
        }
        end += n;
      }
      const Header h = decode_header(buf_.get() + start);
      if (const char* reason = check_request_header(h)) return reject(reason);

      // The header is valid, so now the payload may be read (and room made for it): a frame is
      // always read completely into the buffer.
      const std::size_t total = kHeaderSize + h.length;
      if (capacity_ - start < total) {
        std::memmove(buf_.get(), buf_.get() + start, end - start);
        end -= start;
        start = 0;
        ensure_capacity(buf_, capacity_, total, end);
      }
      while (end - start < total) {
        const std::size_t n = stream.read_some(buf_.get() + end, capacity_ - end);
        if (n == 0) return reject("truncated payload");
        end += n;
      }

      const std::uint8_t* payload = buf_.get() + start + kHeaderSize;
      const Responder::Answer a = responder_.answer(h, payload, corrupted_);
      if (a.size != 0) stream.write_all(a.data, a.size);
      if (responder_.after_send(h, payload)) ++corrupted_;
      if (kind_of(h) == FrameKind::request) ++out.requests;
      start += total;
      if (start == end) start = end = 0;
    }
  } catch (const PeerError& e) {
    out.end = ConnectionOutcome::End::io_error;
    out.detail = e.what();
    responder_.stream_over();
    return out;
  }
}

// ---- the servers ------------------------------------------------------------------------------

namespace {

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

}  // namespace

// Datagram mechanisms (udp, uds-dgram): one datagram per frame, answered to its source. END and
// END_ACK count corrupted requests per client address.
void serve_datagrams(DatagramSocket socket, const ServeOptions& o) {
  announce_ready(socket.endpoint(), o.mechanism_name);
  Responder responder(config_of(o));
  const int fd = socket.fd();
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
    const auto* to = reinterpret_cast<const sockaddr*>(&from);
    const auto client = [&] { return std::string(reinterpret_cast<const char*>(&from), from_len); };
    Header h{};
    if (const char* reason = check_datagram(buf.get(), static_cast<std::size_t>(r), capacity,
                                            socket.max_payload(), h)) {
      report_rejected(reason);
      continue;
    }
    // The count per address is looked up only for END (no string per DATA or REQUEST).
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

void serve_streams(std::unique_ptr<StreamServer> server, const ServeOptions& o) {
  announce_ready(server->endpoint(), o.mechanism_name);
  StreamConnectionHandler handler(config_of(o));
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

// Message channels (section 4.1): frames reassembled from direction-1 messages; one client at a
// time on the same objects. After a rejected frame the next message is taken as the start of the
// next frame (frames start at message boundaries; nothing is dropped, so a following client's
// frames are never lost).
void serve_messages(MessageServer server, const ServeOptions& o) {
  announce_ready(server.endpoint, o.mechanism_name);
  Responder responder(config_of(o));
  MessageStream messages(*server.channel);
  const std::size_t m = messages.max_message();
  std::size_t capacity = 64 * 1024 + m;  // room for a header and any one more message
  auto buf = std::make_unique_for_overwrite<std::uint8_t[]>(capacity);
  std::uint64_t corrupted = 0;
  for (;;) {
    const char* reason = nullptr;
    try {
      std::size_t got = messages.receive_until(buf.get(), 0, kHeaderSize);
      const Header h = decode_header(buf.get());
      reason = check_request_header(h);
      const std::size_t total = kHeaderSize + h.length;
      if (reason == nullptr && got > total) reason = "length mismatch";
      if (reason == nullptr && got < total) {
        ensure_capacity(buf, capacity, total + m, got);  // the header is valid: room may be made
        got = messages.receive_until(buf.get(), got, total);
        if (got > total) reason = "length mismatch";
      }
      if (reason == nullptr) {
        const std::uint8_t* payload = buf.get() + kHeaderSize;
        const Responder::Answer a = responder.answer(h, payload, corrupted);
        if (a.size != 0) messages.send_frame(a.data, a.size);
        if (responder.after_send(h, payload)) ++corrupted;
        continue;
      }
    } catch (const PeerError& e) {
      if (e.kind() != ErrorKind::protocol) throw;
      reason = nullptr;
      report_rejected(e.what());
    }
    if (reason != nullptr) report_rejected(reason);
    corrupted = 0;
    responder.stream_over();
  }
}

// file, file-poll (section 4.2): one file per frame; one client at a time.
void serve_files(const DirEndpoint& dir, bool poll, const ServeOptions& o) {
  FileChannel::Options fo;
  fo.directory = dir.path;
  fo.server = true;
  fo.poll = poll;
  fo.poll_interval_us = o.poll_interval_us;
  FileChannel files(fo);
  announce_ready(dir.path, o.mechanism_name);
  Responder responder(config_of(o));
  std::size_t capacity = 64 * 1024;
  auto buf = std::make_unique_for_overwrite<std::uint8_t[]>(capacity);
  std::uint64_t corrupted = 0;
  for (;;) {
    const std::size_t size = files.next();
    // Read greedily what fits the buffer; the header decides whether to read the rest.
    std::size_t got = files.read(buf.get(), size < capacity ? size : capacity);
    const char* reason = nullptr;
    Header h{};
    if (got < kHeaderSize) {
      reason = "truncated header";
    } else {
      h = decode_header(buf.get());
      reason = check_request_header(h);
      if (reason == nullptr && size != kHeaderSize + h.length) reason = "length mismatch";
    }
    if (reason != nullptr) {
      files.done();
      report_rejected(reason);
      corrupted = 0;
      responder.stream_over();
      continue;
    }
    if (got < size) {
      ensure_capacity(buf, capacity, size, got);
      got += files.read(buf.get() + got, size - got);
    }
    files.done();
    if (got != size) {  // the file shrank under us
      report_rejected("truncated payload");
      corrupted = 0;
      responder.stream_over();
      continue;
    }
    const std::uint8_t* payload = buf.get() + kHeaderSize;
    const Responder::Answer a = responder.answer(h, payload, corrupted);
    if (a.size != 0) files.send(a.data, a.size);
    if (responder.after_send(h, payload)) ++corrupted;
  }
}

int run_serve(const ServeOptions& o) {
  if (const std::string why = nodelay_unsupported(o); !why.empty()) {
    print_line("unsupported: " + why);
    return exit_code(ErrorKind::unsupported);
  }
  if (!o.server_model.empty()) return burst::run_burst_server(o);  // 11.4
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
