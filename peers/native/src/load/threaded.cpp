#include "load/threaded.hpp"

#include <sys/prctl.h>
#include <time.h>

#include <cerrno>
#include <future>
#include <thread>

#include "patterns.hpp"  // now_ns

namespace ipclab::load {

namespace {

void sleep_until(std::int64_t t) {
  const timespec ts{static_cast<time_t>(t / 1'000'000'000), static_cast<long>(t % 1'000'000'000)};
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

std::string at(const std::string& text, std::uint64_t k) {
  return text + " (sequence " + std::to_string(k) + ")";
}

// One connection's thread: its requests k = index, index + C, ... in order; those after the
// one that ended it are not sent. Returns its END's or finish's corrupted count.
std::uint64_t drive_connection(Connection& c, std::size_t index, Run& run, std::int64_t t0,
                               Verdict& verdict, std::string_view end_call) {
  ::prctl(PR_SET_TIMERSLACK, 1UL);  // a sleep ends when asked, not up to 50 µs later
  bool dead = false;
  for (std::size_t k = index; k < run.offsets.size(); k += run.clients) {
    RequestRecord& rec = run.records[k];
    if (dead) {
      rec.error = ConnError::not_sent;
      continue;
    }
    sleep_until(t0 + run.offsets[k]);  // at once when late
    c.prepare(k);
    rec.sent = now_ns() - t0;
    try {
      c.exchange(k);
    } catch (const PeerError& e) {
      rec.error = conn_error(e.kind());
      if (rec.error == ConnError::protocol) verdict.note(e.kind(), at(e.what(), k));
      dead = true;
      continue;
    }
    rec.received = now_ns() - t0;
    rec.error = c.check(k, verdict);
    dead = rec.error == ConnError::protocol;
  }
  if (dead) return 0;
  try {
    return c.finish();
  } catch (const PeerError& e) {
    verdict.note(e.kind(), std::string(end_call) + " (connection " + std::to_string(index) +
                               "): " + e.what());
    return 0;
  }
}

}  // namespace

ConnError conn_error(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::timeout: return ConnError::timeout;
    case ErrorKind::protocol: return ConnError::protocol;
    case ErrorKind::payload_mismatch: return ConnError::payload_mismatch;
    default: return ConnError::io;
  }
}

void run_threaded(Run& run, std::vector<std::unique_ptr<Connection>>& conns,
                  const DriveOptions& o, Recorder& recorder, std::string_view end_call) {
  Verdict verdict;
  std::vector<std::uint64_t> corrupted(conns.size(), 0);
  std::promise<std::int64_t> start;
  std::shared_future<std::int64_t> t0 = start.get_future().share();
  std::vector<std::thread> threads;
  threads.reserve(conns.size());
  for (std::size_t i = 0; i < conns.size(); ++i)
    threads.emplace_back([&, i, t0] {
      corrupted[i] = drive_connection(*conns[i], i, run, t0.get(), verdict, end_call);
    });
  // T0: every connection made, every payload prepared, every thread waiting for it.
  start.set_value(read_t0(o, run));
  for (std::thread& t : threads) t.join();
  publish(run, o, recorder);
  std::uint64_t sum = 0;
  for (const std::uint64_t n : corrupted) sum += n;
  if (sum != 0)
    verdict.note(ErrorKind::payload_mismatch, "payload mismatch: server received " +
                                                  std::to_string(sum) +
                                                  " corrupted request payloads");
  verdict.raise_if_any();
}

}  // namespace ipclab::load
