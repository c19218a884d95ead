#include "client.hpp"

#include <dlfcn.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "error.hpp"
#include "frame.hpp"
#include "lifecycle.hpp"
#include "native/ipclab_native.h"
#include "payload.hpp"
#include "result.hpp"
#include "rpc_hooks.hpp"
#include "transport/file.hpp"
#include "transport/message.hpp"
#include "transport/transport.hpp"

namespace ipclab {

namespace {

// Stream mechanisms: send = one write call for the whole frame; receive = read calls into a
// buffer sized for the whole expected frame, stopping early only if the header announces a
// different length (checked outside the timed region).
class StreamLink {
 public:
  explicit StreamLink(Stream s) : stream_(std::move(s)) {}
  static std::size_t capacity_for(std::size_t frame) { return frame; }
  void send(const std::uint8_t* p, std::size_t n) { stream_.write_all(p, n); }
  std::size_t receive(std::uint8_t* buf, std::size_t capacity, std::size_t expected) {
    (void)capacity;
    std::size_t got = 0;
    bool header_seen = false;
    while (got < expected) {
      const std::size_t n = stream_.read_some(buf + got, expected - got);
      if (n == 0)
        throw PeerError(ErrorKind::io, "end of stream after " + std::to_string(got) + " of " +
                                           std::to_string(expected) + " frame bytes");
      got += n;
      if (!header_seen && got >= kHeaderSize) {
        header_seen = true;
        if (kHeaderSize + load_le32(buf + kOffLength) != expected) return got;
      }
    }
    return got;
  }

 private:
  Stream stream_;
};

// udp: one datagram per frame on a connected socket.
class DatagramLink {
 public:
  explicit DatagramLink(int fd) : fd_(fd) {}
  // Room for any datagram, so an oversized one is seen as such rather than cut.
  static std::size_t capacity_for(std::size_t) { return 65536; }
  ~DatagramLink() { ::close(fd_); }
  DatagramLink(const DatagramLink&) = delete;
  DatagramLink& operator=(const DatagramLink&) = delete;
  void send(const std::uint8_t* p, std::size_t n) {
    for (;;) {
      if (::send(fd_, p, n, 0) >= 0) return;
      if (errno != EINTR) throw_io("send");
    }
  }
  std::size_t receive(std::uint8_t* buf, std::size_t capacity, std::size_t /*expected*/) {
    for (;;) {
      const ssize_t r = ::recv(fd_, buf, capacity, MSG_TRUNC);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno == EINTR) {
        if (receive_timed_out()) throw_timeout();
        continue;
      }
      throw_io("recv");
    }
  }

 private:
  int fd_;
};

// Message channels (section 4.1): the frame cut into messages; the reply reassembled into a
// buffer with room for one message more than the expected frame, so every message is received
// in place.
class MessageLink {
 public:
  explicit MessageLink(std::unique_ptr<MessageChannel> channel)
      : channel_(std::move(channel)), messages_(*channel_) {}
  std::size_t capacity_for(std::size_t frame) const { return frame + messages_.max_message(); }
  void send(const std::uint8_t* p, std::size_t n) { messages_.send_frame(p, n); }
  std::size_t receive(std::uint8_t* buf, std::size_t /*capacity*/, std::size_t expected) {
    const std::size_t got = messages_.receive_until(buf, 0, kHeaderSize);
    if (kHeaderSize + load_le32(buf + kOffLength) != expected) return got;  // checked later
    return messages_.receive_until(buf, got, expected);
  }

 private:
  std::unique_ptr<MessageChannel> channel_;
  MessageStream messages_;
};

// file, file-poll (section 4.2): one file per frame. receive returns the file's size (reading
// at most capacity bytes of it), so a wrong size shows as a frame size mismatch.
class FileLink {
 public:
  explicit FileLink(const FileChannel::Options& o) : files_(o) {}
  static std::size_t capacity_for(std::size_t frame) { return frame; }
  void send(const std::uint8_t* p, std::size_t n) { files_.send(p, n); }
  std::size_t receive(std::uint8_t* buf, std::size_t capacity, std::size_t /*expected*/) {
    const std::size_t size = files_.next();
    files_.read(buf, size < capacity ? size : capacity);
    files_.done();
    return size;
  }

 private:
  FileChannel files_;
};

inline std::int64_t now_ns() noexcept {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::string at_sequence(const std::string& message, std::uint64_t sequence) {
  return message + " (sequence " + std::to_string(sequence) + ")";
}

// The rr pattern over any link. Throws PeerError; samples recorded so far stay in `samples`.
template <class Link>
void run_rr(Link& link, const DriveOptions& o, std::int64_t timeout_ns, SamplesWriter& samples) {
  const std::size_t req_total = kHeaderSize + o.request_size;
  const std::size_t resp_total = kHeaderSize + o.response_size;

  std::vector<std::uint8_t> request(req_total);
  encode_header(request.data(), FrameKind::request, 0, o.request_size, o.response_size);
  fill_base(o.seed, PayloadStream::request, request.data() + kHeaderSize, o.request_size);
  std::uint8_t head[kStampBytes] = {};
  std::memcpy(head, request.data() + kHeaderSize,
              o.request_size < kStampBytes ? o.request_size : kStampBytes);

  const std::vector<std::uint8_t> expected =
      make_base(o.seed, PayloadStream::response, o.response_size);
  const std::size_t capacity =
      link.capacity_for(resp_total > kEndAckSize ? resp_total : kEndAckSize);
  std::vector<std::uint8_t> reply(capacity);

  std::uint8_t* const req = request.data();
  std::uint8_t* const rep = reply.data();
  const std::uint64_t total = o.warmup + o.iterations;
  std::uint64_t seq = 0;
  try {
    for (; seq < total; ++seq) {
      store_le64(req + kOffSequence, seq);
      stamp_from(req + kHeaderSize, head, o.request_size, seq);

      const std::int64_t t0 = now_ns();
      arm_receive_deadline(t0 + timeout_ns);
      link.send(req, req_total);
      const std::size_t got = link.receive(rep, capacity, resp_total);
      const std::int64_t t1 = now_ns();

      if (seq >= o.warmup) samples.add(t1 - t0);
      if (got < kHeaderSize)
        throw PeerError(ErrorKind::protocol, "frame of " + std::to_string(got) +
                                                 " bytes, shorter than a header");
      if (auto bad = check_reply_header(decode_header(rep), FrameKind::response, seq,
                                        o.response_size, o.request_size))
        throw PeerError(ErrorKind::protocol, *bad);
      if (got != resp_total)
        throw PeerError(ErrorKind::protocol, "frame size: expected " +
                                                 std::to_string(resp_total) + ", received " +
                                                 std::to_string(got));
      const std::size_t off = first_difference(rep + kHeaderSize, expected.data(),
                                               o.response_size, seq);
      if (off != kNoDifference)
        throw PeerError(ErrorKind::payload_mismatch,
                        "payload mismatch at offset " + std::to_string(off));
    }

    // END, then END_ACK carrying the number of corrupted requests the server saw.
    std::uint8_t end[kHeaderSize];
    encode_header(end, FrameKind::end, seq, 0, 0);
    arm_receive_deadline(now_ns() + timeout_ns);
    link.send(end, sizeof end);
    const std::size_t got = link.receive(rep, capacity, kEndAckSize);
    disarm_receive_deadline();
    if (got < kHeaderSize)
      throw PeerError(ErrorKind::protocol,
                      "END_ACK of " + std::to_string(got) + " bytes, shorter than a header");
    if (auto bad = check_reply_header(decode_header(rep), FrameKind::end_ack, seq, 8, 0))
      throw PeerError(ErrorKind::protocol, "END_ACK " + *bad);
    if (got != kEndAckSize)
      throw PeerError(ErrorKind::protocol, "END_ACK size: expected 32, received " +
                                               std::to_string(got));
    const std::uint64_t corrupted = load_le64(rep + kHeaderSize);
    if (corrupted != 0)
      throw PeerError(ErrorKind::payload_mismatch,
                      "payload mismatch: server received " + std::to_string(corrupted) +
                          " corrupted request payloads");
  } catch (const PeerError& e) {
    disarm_receive_deadline();
    throw PeerError(e.kind(), at_sequence(e.what(), seq));
  }
}

// Keeps the compiler from moving memory accesses to p across this point (the clock reads).
inline void touch(const void* p) noexcept { asm volatile("" : : "r"(p) : "memory"); }

// none and direct (section 4.4): one round trip is one call of ipclab_call (direct) or the
// same work done in place (none: copy of the cached response base, stamp). No frames: the
// request and response buffers are the payloads. Every response is validated after the clock.
void run_inproc(const DriveOptions& o, ipclab_call_fn call, SamplesWriter& samples) {
  std::vector<std::uint8_t> request(o.request_size);
  fill_base(o.seed, PayloadStream::request, request.data(), o.request_size);
  std::uint8_t head[kStampBytes] = {};
  std::memcpy(head, request.data(), o.request_size < kStampBytes ? o.request_size : kStampBytes);
  const std::vector<std::uint8_t> expected =
      make_base(o.seed, PayloadStream::response, o.response_size);
  std::vector<std::uint8_t> response(o.response_size);

  std::uint8_t* const req = request.data();
  std::uint8_t* const resp = response.data();
  const std::uint8_t* const base = expected.data();
  const std::size_t req_len = o.request_size;
  const std::size_t resp_len = o.response_size;
  const std::uint64_t seed = o.seed;
  const std::uint64_t total = o.warmup + o.iterations;
  std::uint64_t seq = 0;
  try {
    for (; seq < total; ++seq) {
      stamp_from(req, head, req_len, seq);
      touch(req);
      int rc = 0;
      const std::int64_t t0 = now_ns();
      if (call != nullptr) {
        rc = call(req, req_len, resp, resp_len, seed, seq);
      } else {
        std::memcpy(resp, base, resp_len);
        stamp_in_place(resp, resp_len, seq);
      }
      touch(resp);
      const std::int64_t t1 = now_ns();

      if (seq >= o.warmup) samples.add(t1 - t0);
      if (rc != 0)
        throw PeerError(ErrorKind::payload_mismatch,
                        "payload mismatch: ipclab_call returned " + std::to_string(rc) +
                            " (wrong request stamp)");
      const std::size_t off = first_difference(resp, base, resp_len, seq);
      if (off != kNoDifference)
        throw PeerError(ErrorKind::payload_mismatch,
                        "payload mismatch at offset " + std::to_string(off));
    }
  } catch (const PeerError& e) {
    throw PeerError(e.kind(), at_sequence(e.what(), seq));
  }
}

// direct: the library is loaded at run time from --native-library, so the peer itself starts
// without it. The handle stays open until the process exits.
ipclab_call_fn load_ipclab_call(const std::string& path) {
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    throw PeerError(ErrorKind::io, "cannot load " + path + ": " + (why ? why : "dlopen failed"));
  }
  void* sym = ::dlsym(lib, "ipclab_call");
  if (sym == nullptr)
    throw PeerError(ErrorKind::io, path + " has no symbol ipclab_call");
  return reinterpret_cast<ipclab_call_fn>(sym);
}

void drive(const DriveOptions& o, SamplesWriter& samples) {
  samples.open(o.samples_file, o.iterations);  // exists (maybe empty) whatever happens next
  if (o.mechanism == Mechanism::unknown ||
      (is_rpc(o.mechanism) && !(rpc_hooks().supports && rpc_hooks().supports(o.mechanism))))
    throw PeerError(ErrorKind::unsupported,
                    "mechanism '" + o.mechanism_name + "' is not implemented");
  if (o.pattern != "rr")
    throw PeerError(ErrorKind::unsupported, "pattern '" + o.pattern + "' is not implemented");
  if (is_rpc(o.mechanism)) {
    rpc_hooks().drive(o, samples);
    return;
  }
  if (o.payload != PayloadKind::bytes)
    throw PeerError(ErrorKind::unsupported,
                    std::string("payload '") + payload_kind_name(o.payload) +
                        "' needs an RPC mechanism (section 10.2)");
  if (o.mechanism == Mechanism::udp &&
      (o.request_size > kUdpMaxPayload || o.response_size > kUdpMaxPayload))
    throw PeerError(ErrorKind::unsupported,
                    "udp carries at most " + std::to_string(kUdpMaxPayload) +
                        " payload bytes per datagram");

  const std::int64_t timeout = o.io_timeout_ns;
  switch (o.mechanism) {
    case Mechanism::udp: {
      DatagramLink link(connect_udp(o.endpoint));
      ReceiveWatchdog watchdog(timeout);
      run_rr(link, o, timeout, samples);
      return;
    }
    case Mechanism::tcp:
    case Mechanism::uds:
    case Mechanism::pipe:
    case Mechanism::fifo: {
      StreamLink link(o.mechanism == Mechanism::tcp    ? connect_tcp(o.endpoint)
                      : o.mechanism == Mechanism::uds  ? connect_uds(o.endpoint)
                      : o.mechanism == Mechanism::pipe ? open_pipe_client(o.endpoint)
                                                       : open_fifo_client(o.endpoint));
      ReceiveWatchdog watchdog(timeout);
      run_rr(link, o, timeout, samples);
      return;
    }
    case Mechanism::sysv_mq: {
      MessageLink link(open_sysv_mq(o.endpoint));
      ReceiveWatchdog watchdog(timeout);  // msgrcv has no timeout of its own
      run_rr(link, o, timeout, samples);
      return;
    }
    case Mechanism::posix_mq: {
      MessageLink link(open_posix_mq(o.endpoint, timeout));
      run_rr(link, o, timeout, samples);
      return;
    }
    case Mechanism::sysv_shm: {
      MessageLink link(open_sysv_shm(o.endpoint, timeout));
      run_rr(link, o, timeout, samples);
      return;
    }
    case Mechanism::shm:
    case Mechanism::shm_spin:
    case Mechanism::shm_futex: {
      MessageLink link(open_posix_shm(o.endpoint, shm_wait(o.mechanism), o.spin_us, timeout));
      run_rr(link, o, timeout, samples);
      return;
    }
    case Mechanism::none:
      run_inproc(o, nullptr, samples);
      return;
    case Mechanism::direct:
      run_inproc(o, load_ipclab_call(o.native_library), samples);
      return;
    case Mechanism::file:
    case Mechanism::file_poll: {
      FileChannel::Options fo;
      fo.directory = o.endpoint;
      fo.poll = o.mechanism == Mechanism::file_poll;
      fo.poll_interval_us = o.poll_interval_us;
      fo.timeout_ns = fo.poll ? timeout : 0;  // file: the watchdog interrupts the inotify read
      FileLink link(fo);
      if (fo.poll) {
        run_rr(link, o, timeout, samples);
      } else {
        ReceiveWatchdog watchdog(timeout);
        run_rr(link, o, timeout, samples);
      }
      return;
    }
    default: break;
  }
  throw PeerError(ErrorKind::internal, "unreachable mechanism");
}

}  // namespace

int run_drive(const DriveOptions& o) {
  install_client_lifecycle();
  ClientResult result;
  result.mechanism = o.mechanism_name;
  result.pattern = o.pattern;
  result.request_size = o.request_size;
  result.response_size = o.response_size;
  result.warmup = o.warmup;
  result.iterations = o.iterations;
  result.pid = static_cast<long>(::getpid());
  result.payload = payload_kind_name(o.payload);
  if (o.payload != PayloadKind::bytes) result.sequence_length = o.sequence_length;

  SamplesWriter samples;
  try {
    drive(o, samples);
  } catch (const PeerError& e) {
    result.error_kind = e.kind();
    result.error = e.what();
  } catch (const std::exception& e) {
    result.error_kind = ErrorKind::internal;
    result.error = e.what();
  }
  try {
    samples.close();
  } catch (const PeerError& e) {
    if (!result.error_kind) {
      result.error_kind = e.kind();
      result.error = e.what();
    }
  }
  result.samples = samples.written();

  int code = 0;
  if (result.error_kind) {
    print_line(std::string(kind_name(*result.error_kind)) + ": " + result.error);
    code = exit_code(*result.error_kind);
  }
  try {
    write_file_atomically(o.result_file, result_json(result));
  } catch (const PeerError& e) {
    print_line(std::string(kind_name(e.kind())) + ": cannot write the result file: " + e.what());
    if (code == 0) code = exit_code(e.kind());
  }
  return code;
}

}  // namespace ipclab
