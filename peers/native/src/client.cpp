#include "client.hpp"

#include <unistd.h>

#include <string>

#include "burst/client.hpp"
#include "load/client.hpp"
#include "load/queues.hpp"
#include "error.hpp"
#include "frame.hpp"
#include "lifecycle.hpp"
#include "links.hpp"
#include "mechanisms.hpp"
#include "patterns.hpp"

namespace ipclab {

// ---- the drivers ------------------------------------------------------------------------------

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
  // 4.12: iceoryx2's benchmark way, for rr alone.
  if (const std::string why = sample_write_unsupported(o); !why.empty()) unsupported(why);
  if (o.sample_header_only && o.pattern != RequestResponse::name)
    unsupported("--sample-write header applies to rr only, not " + o.pattern);
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
