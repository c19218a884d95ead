#include "rpc/rpc.hpp"

#include <time.h>
#include <unistd.h>

#include <cstring>

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

[[noreturn]] void wait_forever() {
  for (;;) ::pause();
}

// ---- client loop ----------------------------------------------------------------------------

namespace {

inline std::int64_t now_ns() noexcept {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::unique_ptr<Session> open_session(const DriveOptions& o) {
  switch (o.mechanism) {
#ifdef IPCLAB_WITH_GRPC
    case Mechanism::grpc: return open_grpc(o);
#endif
#ifdef IPCLAB_WITH_THRIFT
    case Mechanism::thrift_binary: return open_thrift(o, false);
    case Mechanism::thrift_compact: return open_thrift(o, true);
#endif
#ifdef IPCLAB_WITH_REST
    case Mechanism::rest: return open_rest(o);
#endif
#ifdef IPCLAB_WITH_ICE
    case Mechanism::ice: return open_ice(o);
#endif
#ifdef IPCLAB_WITH_CORBA
    case Mechanism::corba: return open_corba(o);
#endif
    default: break;
  }
  throw PeerError(ErrorKind::unsupported, "mechanism '" + o.mechanism_name + "' is not RPC");
}

void drive_bytes(Session& s, const DriveOptions& o, SamplesWriter& samples, std::uint64_t& seq) {
  std::uint8_t* req = s.prepare_call(o.request_size, o.response_size);
  fill_base(o.seed, PayloadStream::request, req, o.request_size);
  std::uint8_t head[kStampBytes] = {};
  std::memcpy(head, req, o.request_size < kStampBytes ? o.request_size : kStampBytes);
  const std::vector<std::uint8_t> expected =
      make_base(o.seed, PayloadStream::response, o.response_size);
  const std::uint64_t total = o.warmup + o.iterations;
  for (; seq < total; ++seq) {
    stamp_from(req, head, o.request_size, seq);
    const std::int64_t t0 = now_ns();
    s.call(seq);
    const std::int64_t t1 = now_ns();
    if (seq >= o.warmup) samples.add(t1 - t0);
    const auto [got, n] = s.response();
    if (n != o.response_size)
      throw PeerError(ErrorKind::payload_mismatch,
                      "payload mismatch: response of " + std::to_string(n) + " bytes, expected " +
                          std::to_string(o.response_size));
    const std::size_t off = first_difference(got, expected.data(), n, seq);
    if (off != kNoDifference)
      throw PeerError(ErrorKind::payload_mismatch,
                      "payload mismatch at offset " + std::to_string(off));
  }
}

void drive_records(Session& s, const DriveOptions& o, SamplesWriter& samples,
                   std::uint64_t& seq) {
  Record want = make_record(o.seed, o.payload, o.sequence_length);
  s.prepare_echo(o.payload, want);
  const std::uint64_t total = o.warmup + o.iterations;
  for (; seq < total; ++seq) {
    s.stamp_echo(record_stamp(seq));
    const std::int64_t t0 = now_ns();
    s.echo();
    const std::int64_t t1 = now_ns();
    if (seq >= o.warmup) samples.add(t1 - t0);
    want.n[0] = record_stamp(seq);
    const std::string diff = first_record_difference(want, s.echoed());
    if (!diff.empty())
      throw PeerError(ErrorKind::payload_mismatch, "payload mismatch in field " + diff);
  }
}

void drive(const DriveOptions& o, SamplesWriter& samples) {
  std::uint64_t seq = 0;
  try {
    std::unique_ptr<Session> s = open_session(o);
    if (o.payload == PayloadKind::bytes) drive_bytes(*s, o, samples, seq);
    else drive_records(*s, o, samples, seq);
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
  switch (o.mechanism) {
#ifdef IPCLAB_WITH_GRPC
    case Mechanism::grpc: serve_grpc(o, service);
#endif
#ifdef IPCLAB_WITH_THRIFT
    case Mechanism::thrift_binary: serve_thrift(o, service, false);
    case Mechanism::thrift_compact: serve_thrift(o, service, true);
#endif
#ifdef IPCLAB_WITH_REST
    case Mechanism::rest: serve_rest(o, service);
#endif
#ifdef IPCLAB_WITH_ICE
    case Mechanism::ice: serve_ice(o, service);
#endif
#ifdef IPCLAB_WITH_CORBA
    case Mechanism::corba: serve_corba(o, service);
#endif
    default: break;
  }
  throw PeerError(ErrorKind::unsupported, "mechanism '" + o.mechanism_name + "' is not RPC");
}

// The frameworks built in (CMake defines IPCLAB_WITH_*); the others are unsupported (exit 7).
bool supports(Mechanism m) {
  switch (m) {
#ifdef IPCLAB_WITH_GRPC
    case Mechanism::grpc: return true;
#endif
#ifdef IPCLAB_WITH_THRIFT
    case Mechanism::thrift_binary:
    case Mechanism::thrift_compact: return true;
#endif
#ifdef IPCLAB_WITH_REST
    case Mechanism::rest: return true;
#endif
#ifdef IPCLAB_WITH_ICE
    case Mechanism::ice: return true;
#endif
#ifdef IPCLAB_WITH_CORBA
    case Mechanism::corba: return true;
#endif
    default: return false;
  }
}

}  // namespace

void install() {
  RpcHooks hooks;
  hooks.drive = drive;
  hooks.serve = serve;
  hooks.supports = supports;
  install_rpc_hooks(hooks);
}

}  // namespace ipclab::rpc
