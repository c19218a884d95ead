#include "client.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "burst/client.hpp"
#include "load/client.hpp"
#include "load/queues.hpp"
#include "error.hpp"
#include "frame.hpp"
#include "lifecycle.hpp"
#include "links.hpp"
#include "mechanisms.hpp"
#include "patterns.hpp"
#include "payload.hpp"

namespace ipclab {

// ---- the checks of section 2, outside the timed region ---------------------------------------

void check_response(const std::uint8_t* reply, std::size_t got, std::uint64_t seq,
                    const DriveOptions& o, const std::uint8_t* expected_payload) {
  if (got < kHeaderSize)
    throw PeerError(ErrorKind::protocol,
                    "frame of " + std::to_string(got) + " bytes, shorter than a header");
  if (auto bad = check_reply_header(decode_header(reply), FrameKind::response, seq,
                                    o.response_size, o.request_size))
    throw PeerError(ErrorKind::protocol, *bad);
  const std::size_t total = kHeaderSize + o.response_size;
  if (got != total)
    throw PeerError(ErrorKind::protocol, "frame size: expected " + std::to_string(total) +
                                             ", received " + std::to_string(got));
  const std::size_t off =
      first_difference(reply + kHeaderSize, expected_payload, o.response_size, seq);
  if (off != kNoDifference)
    throw PeerError(ErrorKind::payload_mismatch,
                    "payload mismatch at offset " + std::to_string(off));
}

namespace {

// An END_ACK's header and size (section 2), answering END `seq`, with `payload` bytes.
void check_ack_frame(const std::uint8_t* reply, std::size_t got, std::uint64_t seq,
                     std::size_t payload) {
  if (got < kHeaderSize)
    throw PeerError(ErrorKind::protocol,
                    "END_ACK of " + std::to_string(got) + " bytes, shorter than a header");
  if (auto bad = check_reply_header(decode_header(reply), FrameKind::end_ack, seq,
                                    static_cast<std::uint32_t>(payload), 0))
    throw PeerError(ErrorKind::protocol, "END_ACK " + *bad);
  if (got != kHeaderSize + payload)
    throw PeerError(ErrorKind::protocol, "END_ACK size: expected " +
                                             std::to_string(kHeaderSize + payload) +
                                             ", received " + std::to_string(got));
}

void check_corrupted(std::uint64_t corrupted) {
  if (corrupted != 0)
    throw PeerError(ErrorKind::payload_mismatch,
                    "payload mismatch: server received " + std::to_string(corrupted) +
                        " corrupted request payloads");
}

}  // namespace

void check_end_ack(const std::uint8_t* reply, std::size_t got, std::uint64_t seq) {
  check_ack_frame(reply, got, seq, kEndAckSize - kHeaderSize);
  check_corrupted(load_le64(reply + kHeaderSize));
}

void check_one_way_ack(const std::uint8_t* reply, std::size_t got, std::uint64_t seq,
                       std::uint64_t sent) {
  check_ack_frame(reply, got, seq, kOneWayAckPayload);
  check_corrupted(load_le64(reply + kHeaderSize));
  const std::uint64_t received = load_le64(reply + kHeaderSize + 8);
  if (received < sent)
    throw PeerError(ErrorKind::protocol,
                    "the server received " + std::to_string(received) +
                        " one-way requests, the client sent " + std::to_string(sent) +
                        " (warm-up + iterations)");
}

void check_mark_ack(const std::uint8_t* reply, std::size_t got, std::uint64_t seq) {
  if (got < kHeaderSize)
    throw PeerError(ErrorKind::protocol, "MARK_ACK of " + std::to_string(got) + " bytes");
  if (auto bad = check_reply_header(decode_header(reply), FrameKind::mark_ack, seq, 0, 0))
    throw PeerError(ErrorKind::protocol, "MARK_ACK " + *bad);
}

void finish_stream(const std::uint8_t* ack, std::size_t got, std::uint64_t end_sequence,
                   bool lossy, const DriveOptions& o, StreamReport& report, Recorder& recorder) {
  check_ack_frame(ack, got, end_sequence, kStreamAckPayload);
  std::uint64_t field[7];
  for (int i = 0; i < 7; ++i) field[i] = load_le64(ack + kHeaderSize + 8 * i);
  const std::uint64_t received = field[0], gaps = field[1], checksum = field[2];
  report.messages = o.messages;
  report.message_size = o.message_size;
  report.windows = o.windows;
  report.server_cpu = {field[3], field[4], field[5], field[6]};
  // udp: a lost datagram is counted, not an error; the checksum is checked when none was lost.
  if (lossy && received < o.messages) report.lost = o.messages - received;
  recorder.report(report);  // the figures are kept whatever the validation finds
  if (report.lost != 0) return;
  if (received != o.messages || gaps != 0)
    throw PeerError(ErrorKind::payload_mismatch,
                    "payload mismatch: the server received " + std::to_string(received) + " of " +
                        std::to_string(o.messages) + " messages, " + std::to_string(gaps) +
                        (gaps == 1 ? " gap" : " gaps"));
  // The measured messages follow the two MARKs and the warm-up: sequences M+2 ... M+N+1.
  const std::uint64_t want = expected_checksum(o.seed, o.message_size, o.warmup + 2, o.messages);
  if (checksum != want) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "payload mismatch: stream checksum 0x%016llx from the server, 0x%016llx sent",
                  static_cast<unsigned long long>(checksum), static_cast<unsigned long long>(want));
    throw PeerError(ErrorKind::payload_mismatch, text);
  }
}

// ---- the drivers ------------------------------------------------------------------------------

namespace {

// The asked pattern over a connected link; the table's check makes an unknown name impossible.
template <class Link>
void run_pattern(Link& link, const DriveOptions& o, Recorder& recorder) {
  if (!Patterns::run(o.pattern, link, o, recorder))
    throw PeerError(ErrorKind::unsupported, "pattern '" + o.pattern + "' is not implemented");
}

// Keeps the compiler from moving memory accesses to p across this point (the clock reads).
inline void touch(const void* p) noexcept { asm volatile("" : : "r"(p) : "memory"); }

}  // namespace

void drive_stream(Stream stream, const DriveOptions& o, Recorder& recorder,
                  StreamConnector reconnect) {
  StreamLink link(std::move(stream), std::move(reconnect));
  ReceiveWatchdog watchdog(o.io_timeout_ns);  // after connecting: connect is not interrupted
  run_pattern(link, o, recorder);
}

void drive_datagrams(DatagramSocket socket, const DriveOptions& o, Recorder& recorder) {
  DatagramLink link(std::move(socket));
  ReceiveWatchdog watchdog(o.io_timeout_ns);
  run_pattern(link, o, recorder);
}

void drive_messages(std::unique_ptr<MessageChannel> channel, bool timer, const DriveOptions& o,
                    Recorder& recorder) {
  MessageLink link(std::move(channel));
  if (!timer) return run_pattern(link, o, recorder);
  ReceiveWatchdog watchdog(o.io_timeout_ns);
  run_pattern(link, o, recorder);
}

void drive_files(const DirEndpoint& dir, bool poll, const DriveOptions& o, Recorder& recorder) {
  FileChannel::Options fo;
  fo.directory = dir.path;
  fo.poll = poll;
  fo.poll_interval_us = o.poll_interval_us;
  fo.timeout_ns = poll ? o.io_timeout_ns : 0;  // file: the watchdog interrupts the inotify read
  FileLink link(fo);
  if (poll) return run_pattern(link, o, recorder);
  ReceiveWatchdog watchdog(o.io_timeout_ns);
  run_pattern(link, o, recorder);
}

namespace {

// none with --mock new-array (contract 6): the thesis's Mock. Each call makes a new zero-filled
// array of the response size (value-initialised) and checks its length, and nothing more; the
// array is freed after the clock, once its length was checked again (its bytes are zeros by
// definition, so there is nothing else to validate).
void drive_new_arrays(const DriveOptions& o, Recorder& recorder) {
  const std::size_t resp_len = o.response_size;
  const std::uint64_t total = o.warmup + o.iterations;
  std::uint64_t seq = 0;
  try {
    for (; seq < total; ++seq) {
      const std::int64_t t0 = now_ns();
      std::vector<std::uint8_t> fresh(resp_len);
      touch(fresh.data());  // the array is made and zeroed: the compiler may not drop it
      const bool length_ok = fresh.size() == resp_len;  // the thesis's length check
      const std::int64_t t1 = now_ns();

      if (!length_ok || fresh.size() != resp_len)
        throw PeerError(ErrorKind::payload_mismatch,
                        "payload mismatch: a new array of " + std::to_string(fresh.size()) +
                            " bytes, expected " + std::to_string(resp_len));
      recorder.record(seq, t1 - t0);
    }
  } catch (const PeerError& e) {
    throw PeerError(e.kind(), at_sequence(e.what(), seq));
  }
}

}  // namespace

// none and direct (section 4.4): one round trip is one call of ipclab_call (direct) or the
// same work done in place (none: copy of the cached response base, stamp; or, --mock new-array,
// a new array per call). No frames: the request and response buffers are the payloads. Every
// response is validated after the clock, and only then recorded.
void drive_calls(ipclab_call_fn call, const DriveOptions& o, Recorder& recorder) {
  if (call == nullptr && o.mock_new_array) return drive_new_arrays(o, recorder);
  std::vector<std::uint8_t> request(o.request_size);
  fill_base(o.seed, PayloadStream::request, request.data(), o.request_size);
  std::uint8_t head[kStampBytes] = {};
  if (o.request_size != 0)  // an empty vector's data() may be null (memcpy needs a pointer)
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
        if (resp_len != 0) std::memcpy(resp, base, resp_len);  // both null when empty
        stamp_in_place(resp, resp_len, seq);
      }
      touch(resp);
      const std::int64_t t1 = now_ns();

      if (rc != 0)
        throw PeerError(ErrorKind::payload_mismatch,
                        "payload mismatch: ipclab_call returned " + std::to_string(rc) +
                            " (wrong request stamp)");
      const std::size_t off = first_difference(resp, base, resp_len, seq);
      if (off != kNoDifference)
        throw PeerError(ErrorKind::payload_mismatch,
                        "payload mismatch at offset " + std::to_string(off));
      recorder.record(seq, t1 - t0);
    }
  } catch (const PeerError& e) {
    throw PeerError(e.kind(), at_sequence(e.what(), seq));
  }
}

// The library is loaded at run time from --native-library, so the peer itself starts without
// it. The handle stays open until the process exits.
ipclab_call_fn load_ipclab_call(const std::string& path) {
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    throw PeerError(ErrorKind::io, "cannot load " + path + ": " + (why ? why : "dlopen failed"));
  }
  void* sym = ::dlsym(lib, "ipclab_call");
  if (sym == nullptr) throw PeerError(ErrorKind::io, path + " has no symbol ipclab_call");
  return reinterpret_cast<ipclab_call_fn>(sym);
}

// ---- drive ------------------------------------------------------------------------------------

namespace {

// Contract 3's study flags on a mechanism that has no such thing: unsupported (section 1).
void check_studies(const DriveOptions& o) {
  const auto unsupported = [&](const std::string& why) {
    throw PeerError(ErrorKind::unsupported, why);
  };
  if (const std::string why = nodelay_unsupported(o); !why.empty()) unsupported(why);
  if (const std::string why = delivery_unsupported(o); !why.empty()) unsupported(why);
  if (o.void_call && o.mechanism->family != Family::rpc)
    unsupported("--void needs an RPC mechanism, not " + o.mechanism_name);
  if (o.rest_json && (o.mechanism_name != "rest" || o.payload != PayloadKind::bytes))
    unsupported("--rest-body json applies to rest with bytes payloads only");
  if (o.corba_string && (o.mechanism_name != "corba" || o.payload != PayloadKind::bytes))
    unsupported("--corba-payload string applies to corba with bytes payloads only");
  // One-way REQUESTs are section 2 frames (11.2): not for rest's HTTP calls.
  if (o.one_way && o.mechanism->family != Family::frames)
    unsupported("--one-way is not implemented for " + o.mechanism_name +
                " (section 2 frames only)");
  // Contract 6: the source bind is tcp's (11.2); the mock is none's (4.4).
  if (!o.source_rotate && o.mechanism_name != "tcp")
    unsupported("--source one applies to short over tcp only, not " + o.mechanism_name);
  if (o.mock_new_array && o.mechanism_name != "none")
    unsupported("--mock new-array applies to mechanism none only, not " + o.mechanism_name);
}

// What the table says this peer cannot do for these options: unsupported (exit 7).
void check_supported(const DriveOptions& o) {
  const Mechanism* m = o.mechanism;
  const auto unsupported = [](const std::string& why) {
    return PeerError(ErrorKind::unsupported, why);
  };
  if (m == nullptr) throw unsupported("mechanism '" + o.mechanism_name + "' is not implemented");
  bool pattern_known = false;
  for (const std::string_view p : m->patterns) pattern_known = pattern_known || p == o.pattern;
  if (!pattern_known)
    throw unsupported("pattern '" + o.pattern + "' is not implemented for " + o.mechanism_name);
  if (o.payload != PayloadKind::bytes && m->family != Family::rpc)
    throw unsupported(std::string("payload '") + payload_kind_name(o.payload) +
                      "' needs an RPC mechanism (section 10.2)");
  check_studies(o);
  const std::uint64_t limit = m->max_payload();
  if (o.request_size > limit || o.response_size > limit)
    throw unsupported(o.mechanism_name + " carries at most " + std::to_string(limit) +
                      " payload bytes here");
  // A stream message has no header (11.1 item 10): a mechanism whose frames are capped by the
  // datagram (udp, uds-dgram) carries messages of the whole datagram, the others MAX_PAYLOAD.
  const std::uint64_t message_limit = limit < kMaxPayload ? limit + kHeaderSize : kMaxPayload;
  if (o.message_size > message_limit)
    throw unsupported(o.mechanism_name + " carries stream messages of at most " +
                      std::to_string(message_limit) + " bytes here");
}

bool is_stream(const DriveOptions& o) { return o.pattern == "stream"; }

// How many samples the samples file is to take (its writer's chunk): load's schedule is made
// later, so its expected size stands in.
std::uint64_t expected_samples(const DriveOptions& o) {
  if (is_stream(o)) return o.windows;
  if (o.pattern == OpenLoopLoad::name) return o.rate * o.duration_ms / 1000 + 1;
  return o.iterations;
}

void drive(const DriveOptions& o, SamplesWriter& samples, SamplesWriter& warmup,
           Recorder& recorder) {
  // Both files exist (maybe empty) whatever happens next (stream has no warm-up file).
  samples.open(o.samples_file, expected_samples(o));
  if (!o.warmup_samples_file.empty()) warmup.open(o.warmup_samples_file, o.warmup);
  check_supported(o);
  if (o.pattern == ConnectionBurst::name)
    return burst::run_burst_client(o, *o.mechanism->burst, recorder);
  if (o.pattern == OpenLoopLoad::name && o.mechanism->burst != nullptr)  // RPC: its own (11.5.4)
    return load::run_load_client(o, *o.mechanism->burst, recorder);
  if (o.pattern == OpenLoopLoad::name && o.mechanism->queue_load != nullptr)  // 11.5.5
    return load::drive_queue(*o.mechanism->queue_load, o, recorder);
  o.mechanism->drive(o, recorder);
}

ClientResult result_of(const DriveOptions& o) {
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
  return result;
}

void note_error(ClientResult& result, ErrorKind kind, const std::string& message) {
  if (result.error_kind) return;  // the first error is the one reported
  result.error_kind = kind;
  result.error = message;
}

}  // namespace

int run_drive(const DriveOptions& o) {
  install_client_lifecycle();
  ClientResult result = result_of(o);
  SamplesWriter samples, warmup;
  Recorder recorder(samples, o.warmup_samples_file.empty() ? nullptr : &warmup, o.warmup);
  try {
    drive(o, samples, warmup, recorder);
  } catch (const PeerError& e) {
    note_error(result, e.kind(), e.what());
  } catch (const std::exception& e) {
    note_error(result, ErrorKind::internal, e.what());
  }
  for (SamplesWriter* w : {&samples, &warmup}) {
    try {
      w->close();
    } catch (const PeerError& e) {
      note_error(result, e.kind(), e.what());
    }
  }
  result.samples = samples.written();
  result.warmup_samples = warmup.written();
  result.stream = recorder.stream_report();
  result.burst = recorder.burst_report();
  result.load = recorder.load_report();
  if (result.load) {  // the schedule's counts (11.5.3)
    result.iterations = result.load->measured;
    result.warmup = result.load->warmup;
  }

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
