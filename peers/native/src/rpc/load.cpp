// load over an RPC framework (PROTOCOL.md 11.5.4): C sessions of the framework, each with a
// transport connection of its own, each driven by a thread of its own (a blocking stub call is
// all most frameworks offer): request k goes on session k mod C at T0 + o_k, or as soon as that
// session's previous call has returned if that is later. The schedule, the records and what
// becomes of them are load/'s, as over tcp.
#include <sys/prctl.h>
#include <time.h>

#include <cerrno>
#include <cstring>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "load/report.hpp"
#include "patterns.hpp"  // now_ns
#include "payload.hpp"
#include "rpc/rpc.hpp"

namespace ipclab::rpc {

namespace {

using load::ConnError;

// A request that failed ends its session (11.5.4), as a failed request ends a tcp connection.
ConnError conn_error(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::timeout: return ConnError::timeout;
    case ErrorKind::protocol: return ConnError::protocol;
    case ErrorKind::payload_mismatch: return ConnError::payload_mismatch;
    default: return ConnError::io;
  }
}

void sleep_until(std::int64_t t) {
  const timespec ts{static_cast<time_t>(t / 1'000'000'000), static_cast<long>(t % 1'000'000'000)};
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// The first failure that makes the client exit with its kind (protocol, payload mismatch, or
// finish's), kept across threads.
class Verdict {
 public:
  void note(ErrorKind kind, const std::string& text) {
    std::lock_guard lock(mutex_);
    if (text_.empty()) kind_ = kind, text_ = text;
  }
  void raise_if_any() const {
    if (!text_.empty()) throw PeerError(kind_, text_);
  }

 private:
  std::mutex mutex_;
  ErrorKind kind_ = ErrorKind::protocol;
  std::string text_;
};

// One session: its request buffer (stamped in place per call) and its requests k ≡ index mod C.
class Connection {
 public:
  Connection(std::unique_ptr<Session> session, const DriveOptions& o, std::size_t index)
      : s_(std::move(session)), o_(o), index_(index) {
    req_ = s_->prepare_call(o.request_size, o.response_size);
    fill_base(o.seed, PayloadStream::request, req_, o.request_size);
    s_->request_filled();
    if (o.request_size != 0)
      std::memcpy(head_, req_, o.request_size < kStampBytes ? o.request_size : kStampBytes);
  }

  void run(load::Run& run, std::int64_t t0, const std::vector<std::uint8_t>& expected,
           Verdict& verdict) {
    ::prctl(PR_SET_TIMERSLACK, 1UL);  // a sleep ends when asked, not up to 50 µs later
    const std::size_t step = run.clients;
    bool dead = false;
    for (std::size_t k = index_; k < run.offsets.size(); k += step) {
      load::RequestRecord& rec = run.records[k];
      if (dead) {
        rec.error = ConnError::not_sent;
        continue;
      }
      sleep_until(t0 + run.offsets[k]);  // at once when late
      dead = !call(k, rec, t0, expected, verdict);
    }
    if (!dead) finish(verdict);
  }

  std::uint64_t corrupted() const noexcept { return corrupted_; }

 private:
  // One request; false when it ended the session.
  bool call(std::uint64_t k, load::RequestRecord& rec, std::int64_t t0,
            const std::vector<std::uint8_t>& expected, Verdict& verdict) {
    stamp_from(req_, head_, o_.request_size, k);
    const std::int64_t sent = now_ns();
    rec.sent = sent - t0;
    try {
      s_->call(k);
    } catch (const PeerError& e) {
      rec.error = conn_error(e.kind());
      if (rec.error == ConnError::protocol) verdict.note(e.kind(), at(e.what(), k));
      return false;
    }
    rec.received = now_ns() - t0;
    const auto [got, n] = s_->response();
    const std::size_t off = n != o_.response_size
                                ? 0
                                : first_difference(got, expected.data(), n, k);
    if (n != o_.response_size || off != kNoDifference) {
      rec.error = ConnError::payload_mismatch;
      verdict.note(ErrorKind::payload_mismatch,
                   at(n != o_.response_size ? "payload mismatch: response of " +
                                                  std::to_string(n) + " bytes"
                                            : "payload mismatch at offset " + std::to_string(off),
                      k));
    }
    return true;
  }

  void finish(Verdict& verdict) {
    try {
      corrupted_ = s_->finish();
    } catch (const PeerError& e) {
      verdict.note(e.kind(), std::string("finish (connection ") + std::to_string(index_) +
                                 "): " + e.what());
    }
  }

  static std::string at(const std::string& text, std::uint64_t k) {
    return text + " (sequence " + std::to_string(k) + ")";
  }

  std::unique_ptr<Session> s_;
  const DriveOptions& o_;
  std::size_t index_;
  std::uint8_t* req_ = nullptr;
  std::uint8_t head_[kStampBytes] = {};
  std::uint64_t corrupted_ = 0;
};

}  // namespace

void drive_load(std::unique_ptr<Session> (*open)(const DriveOptions&), const DriveOptions& o,
                Recorder& recorder) {
  if (o.corba_string)
    throw PeerError(ErrorKind::unsupported, "--corba-payload string is not part of load");
  load::Run run = load::plan_run(o);
  std::vector<Connection> conns;
  conns.reserve(o.clients);
  for (std::size_t i = 0; i < o.clients; ++i) conns.emplace_back(open(o), o, i);  // connects
  const std::vector<std::uint8_t> expected =
      make_base(o.seed, PayloadStream::response, o.response_size);
  Verdict verdict;
  std::promise<std::int64_t> start;
  std::shared_future<std::int64_t> t0 = start.get_future().share();
  std::vector<std::thread> threads;
  threads.reserve(conns.size());
  for (Connection& c : conns)
    threads.emplace_back([&, t0] { c.run(run, t0.get(), expected, verdict); });
  start.set_value(now_ns());  // T0: every session connected, every payload prepared
  for (std::thread& t : threads) t.join();
  load::publish(run, o, recorder);
  std::uint64_t corrupted = 0;
  for (const Connection& c : conns) corrupted += c.corrupted();
  if (corrupted != 0)
    verdict.note(ErrorKind::payload_mismatch, "payload mismatch: server received " +
                                                  std::to_string(corrupted) +
                                                  " corrupted request payloads");
  verdict.raise_if_any();
}

}  // namespace ipclab::rpc
