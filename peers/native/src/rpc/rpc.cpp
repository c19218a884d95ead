#include "rpc/rpc.hpp"

#include <time.h>
#include <unistd.h>

#include <cstring>
#include <span>

#include "patterns.hpp"
#include "payload.hpp"
#include "rpc_hooks.hpp"

namespace ipclab::rpc {

// ---- Service --------------------------------------------------------------------------------

const std::uint8_t* Service::base(std::vector<std::uint8_t>& cache, std::int64_t& cached_n,
                                  int stream, std::size_t n) {
  if (cached_n != static_cast<std::int64_t>(n)) {
    cache.resize(n);
    fill_base(seed_, static_cast<PayloadStream>(stream), cache.data(), n);
    cached_n = static_cast<std::int64_t>(n);
  }
  return cache.data();
}

void Service::call(std::uint64_t seq, std::uint32_t wanted, const std::uint8_t* request,
                   std::size_t length, std::uint8_t* out) {
  std::lock_guard lock(mutex_);
  const std::uint8_t* rb = base(response_base_, response_n_, 2, wanted);
  if (wanted > 0) {
    std::memcpy(out, rb, wanted);
    stamp_in_place(out, wanted, seq);
    if (flip_) out[wanted - 1] ^= 0x01;
  }
  // An RPC handler has no "after the reply": the check is part of handling the request (10.1).
  const std::uint8_t* qb = base(request_base_, request_n_, 1, length);
  if (first_difference(request, qb, length, seq) != kNoDifference) ++corrupted_;
}

void Service::call_string(std::uint64_t seq, std::uint32_t wanted, const char* request,
                          std::size_t length, char* out) {
  std::lock_guard lock(mutex_);
  const std::uint8_t* rb = base(response_base_, response_n_, 2, wanted);
  for (std::size_t j = 0; j < wanted; ++j) {
    std::uint8_t b = rb[j];
    if (j < kStampBytes) b ^= static_cast<std::uint8_t>(seq >> (8 * j));
    if (flip_ && j + 1 == wanted) b ^= 0x01;  // a different character (b mod 62 changes)
    out[j] = text_char(b);
  }
  const std::uint8_t* qb = base(request_base_, request_n_, 1, length);
  if (first_text_difference(request, qb, length, seq) != kNoDifference) ++corrupted_;
}

std::string ready_extra(const ServeOptions& o) {
  return o.load ? ", \"server_model\": " + json_string(o.server_model) : std::string();
}

int timeout_ms(const DriveOptions& o) noexcept {
  const std::int64_t ms = (o.io_timeout_ns + 999'999) / 1'000'000;
  return ms > INT32_MAX ? INT32_MAX : static_cast<int>(ms);
}

[[noreturn]] void wait_forever() {
  for (;;) ::pause();
}

// ---- client loop ----------------------------------------------------------------------------

namespace {

// The frameworks this build carries (CMake defines IPCLAB_WITH_*), by the name of their row in
// the table of mechanisms (mechanisms.cpp).
struct Framework {
  std::string_view mechanism;
  std::unique_ptr<Session> (*open)(const DriveOptions&);
  void (*serve)(const ServeOptions&, Service&);
  // load (11.5.4): the server configurations its load server offers, by the names the peer
  // gives them (README.md "RPC middleware under load"); the first is the rr server's. Empty:
  // no load over this framework.
  std::span<const std::string_view> load_models;
  // Pattern stream (11.3), where the framework has it; the table's rows say which do.
  void (*stream)(const DriveOptions&, Recorder&) = nullptr;
};

// The server configurations (11.5.4). grpc: the synchronous service on gRPC's own thread pool,
// or the callback service (each call answered where gRPC delivers it);
// rest: cpp-httplib's pool of worker threads; thrift: TThreadedServer, a thread per connection;
// ice: the server thread pool at Ice's default size 1, or 4 threads; corba: omniORB's thread
// per connection (its default) or its thread pool (threadPerConnectionPolicy 0).
constexpr std::string_view kGrpcModels[] = {"sync", "callback"};
constexpr std::string_view kRestModels[] = {"thread-pool"};
constexpr std::string_view kThriftModels[] = {"threaded"};
constexpr std::string_view kIceModels[] = {"thread-pool-1", "thread-pool-4"};
constexpr std::string_view kCorbaModels[] = {"thread-per-connection", "thread-pool"};

const Framework kFrameworks[] = {
#ifdef IPCLAB_WITH_GRPC
    {"grpc", open_grpc, serve_grpc, kGrpcModels, stream_grpc},
#endif
#ifdef IPCLAB_WITH_THRIFT
    {"thrift-binary", [](const DriveOptions& o) { return open_thrift(o, false); },
     [](const ServeOptions& o, Service& s) { serve_thrift(o, s, false); }, kThriftModels},
    {"thrift-compact", [](const DriveOptions& o) { return open_thrift(o, true); },
     [](const ServeOptions& o, Service& s) { serve_thrift(o, s, true); }, kThriftModels},
#endif
#ifdef IPCLAB_WITH_REST
    {"rest", open_rest, serve_rest, kRestModels},
#endif
#ifdef IPCLAB_WITH_ICE
    {"ice", open_ice, serve_ice, kIceModels},
#endif
#ifdef IPCLAB_WITH_CORBA
    {"corba", open_corba, serve_corba, kCorbaModels},
#endif
#ifdef IPCLAB_WITH_SOAP
    // rr only: no load server configurations (yet).
    {"soap", open_soap, serve_soap, {}},
#endif
};

const Framework* find_framework(std::string_view mechanism) {
  for (const Framework& f : kFrameworks)
    if (f.mechanism == mechanism) return &f;
  return nullptr;
}

const Framework& framework_of(const std::string& mechanism) {
  const Framework* f = find_framework(mechanism);
  if (f == nullptr)
    throw PeerError(ErrorKind::unsupported, "mechanism '" + mechanism + "' is not built in");
  return *f;
}

// Every call's time is recorded only after its answer passed validation (section 7). Compare:
// first_difference, or first_text_difference for a session answering text (callString).
template <class Got, std::size_t (*Compare)(const Got*, const std::uint8_t*, std::size_t,
                                            std::uint64_t) noexcept>
void drive_bytes(Session& s, const DriveOptions& o, Recorder& recorder, std::uint64_t& seq) {
  std::uint8_t* req = s.prepare_call(o.request_size, o.response_size);
  fill_base(o.seed, PayloadStream::request, req, o.request_size);
  s.request_filled();
  std::uint8_t head[kStampBytes] = {};
  if (o.request_size != 0)  // a 0-byte request may have no buffer (memcpy needs a pointer)
    std::memcpy(head, req, o.request_size < kStampBytes ? o.request_size : kStampBytes);
  const std::vector<std::uint8_t> expected =
      make_base(o.seed, PayloadStream::response, o.response_size);
  const std::uint64_t total = o.warmup + o.iterations;
  for (; seq < total; ++seq) {
    stamp_from(req, head, o.request_size, seq);
    const std::int64_t t0 = now_ns();
    s.call(seq);
    const std::int64_t t1 = now_ns();
    const auto [got, n] = s.response();
    if (n != o.response_size)
      throw PeerError(ErrorKind::payload_mismatch,
                      "payload mismatch: response of " + std::to_string(n) + " bytes, expected " +
                          std::to_string(o.response_size));
    const std::size_t off = Compare(reinterpret_cast<const Got*>(got), expected.data(), n, seq);
    if (off != kNoDifference)
      throw PeerError(ErrorKind::payload_mismatch,
                      "payload mismatch at offset " + std::to_string(off));
    recorder.record(seq, t1 - t0);
  }
}

// --void (10.1): put(seq, request) per call; nothing comes back to check.
void drive_put_bytes(Session& s, const DriveOptions& o, Recorder& recorder, std::uint64_t& seq) {
  std::uint8_t* req = s.prepare_put(o.request_size);
  fill_base(o.seed, PayloadStream::request, req, o.request_size);
  std::uint8_t head[kStampBytes] = {};
  if (o.request_size != 0)  // a 0-byte request may have no buffer (memcpy needs a pointer)
    std::memcpy(head, req, o.request_size < kStampBytes ? o.request_size : kStampBytes);
  for (const std::uint64_t total = o.warmup + o.iterations; seq < total; ++seq) {
    stamp_from(req, head, o.request_size, seq);
    const std::int64_t t0 = now_ns();
    s.put(seq);
    const std::int64_t t1 = now_ns();
    recorder.record(seq, t1 - t0);
  }
}

// The record of each call (10.2): one for every call (--records one), or the next of the stream
// before each call, warm-up included (--records per-call; call 0 has record 1, as with one). It
// is made outside the clock, into the same Record, and converted into the session's message
// object of the first call (prepare_echo again: the framework's storage is reused where it
// allows).
class CallRecords {
 public:
  CallRecords(Session& s, const DriveOptions& o)
      : session_(s),
        kind_(o.payload),
        per_call_(o.records_per_call),
        stream_(o.seed, o.payload, o.sequence_length, o.value_range) {
    stream_.next(record_);
    session_.prepare_echo(kind_, record_);
  }
  // Before call seq: its record, prepared and stamped; returned with n1 stamped as the echo's.
  const Record& before(std::uint64_t seq) {
    if (per_call_ && !first_) {
      stream_.next(record_);
      session_.prepare_echo(kind_, record_);
    }
    first_ = false;
    record_.n[0] = record_stamp(seq);
    session_.stamp_echo(record_.n[0]);
    return record_;
  }

 private:
  Session& session_;
  PayloadKind kind_;
  bool per_call_;
  bool first_ = true;  // the first call takes the record the constructor made
  RecordStream stream_;
  Record record_;
};

void drive_put_records(Session& s, const DriveOptions& o, Recorder& recorder,
                       std::uint64_t& seq) {
  CallRecords records(s, o);
  for (const std::uint64_t total = o.warmup + o.iterations; seq < total; ++seq) {
    records.before(seq);
    const std::int64_t t0 = now_ns();
    s.put_record();
    const std::int64_t t1 = now_ns();
    recorder.record(seq, t1 - t0);
  }
}

void drive_records(Session& s, const DriveOptions& o, Recorder& recorder, std::uint64_t& seq) {
  CallRecords records(s, o);
  const std::uint64_t total = o.warmup + o.iterations;
  for (; seq < total; ++seq) {
    const Record& want = records.before(seq);
    const std::int64_t t0 = now_ns();
    s.echo();
    const std::int64_t t1 = now_ns();
    const std::string diff = first_record_difference(want, s.echoed());
    if (!diff.empty())
      throw PeerError(ErrorKind::payload_mismatch, "payload mismatch in field " + diff);
    recorder.record(seq, t1 - t0);
  }
}

// The loop these options ask for.
void drive_calls(Session& s, const DriveOptions& o, Recorder& recorder, std::uint64_t& seq) {
  const bool bytes = o.payload == PayloadKind::bytes;
  if (o.void_call) return bytes ? drive_put_bytes(s, o, recorder, seq)
                                : drive_put_records(s, o, recorder, seq);
  if (!bytes) return drive_records(s, o, recorder, seq);
  if (o.corba_string) return drive_bytes<char, first_text_difference>(s, o, recorder, seq);
  drive_bytes<std::uint8_t, first_difference>(s, o, recorder, seq);
}

void drive(const DriveOptions& o, Recorder& recorder) {
  if (o.pattern == "load") {  // its errors name their sequence already
    const Framework& f = framework_of(o.mechanism_name);
    if (f.load_models.empty())
      throw PeerError(ErrorKind::unsupported, "pattern load is not implemented for " +
                                                  o.mechanism_name);
    return drive_load(f.open, o, recorder);
  }
  if (o.pattern == "stream") {  // its errors name their sequence already
    const Framework& f = framework_of(o.mechanism_name);
    if (f.stream == nullptr)
      throw PeerError(ErrorKind::unsupported, "pattern stream is not implemented for " +
                                                  o.mechanism_name);
    return f.stream(o, recorder);
  }
  std::uint64_t seq = 0;
  try {
    std::unique_ptr<Session> s = framework_of(o.mechanism_name).open(o);
    drive_calls(*s, o, recorder, seq);
    const std::uint64_t corrupted = s->finish();
    if (corrupted != 0)
      throw PeerError(ErrorKind::payload_mismatch,
                      "payload mismatch: server received " + std::to_string(corrupted) +
                          " corrupted request payloads");
  } catch (const PeerError& e) {
    // Framework texts may span lines (Ice's do); the error is one line on stderr.
    std::string text = e.what();
    for (char& c : text)
      if (c == '\n' || c == '\r') c = ' ';
    throw PeerError(e.kind(), text + " (sequence " + std::to_string(seq) + ")");
  }
}

void serve(const ServeOptions& o) {
  static Service service(o);
  framework_of(o.mechanism_name).serve(o, service);
}

bool supports(std::string_view mechanism) { return find_framework(mechanism) != nullptr; }

std::span<const std::string_view> load_models(std::string_view mechanism) {
  const Framework* f = find_framework(mechanism);
  return f != nullptr ? f->load_models : std::span<const std::string_view>{};
}

}  // namespace

void install() {
  RpcHooks hooks;
  hooks.drive = drive;
  hooks.serve = serve;
  hooks.supports = supports;
  hooks.load_models = load_models;
  install_rpc_hooks(hooks);
}

}  // namespace ipclab::rpc
