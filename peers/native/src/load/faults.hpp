// load (PROTOCOL.md 11.5.1): the test-only faults of a load server, which hold RESPONSEs.
// `stall`: a request read in the first 100 ms of a second since READY is answered when those
// 100 ms end. `capacity:N`: a token bucket of N tokens/s holding max(1, N/100), one token per
// RESPONSE. The gate lives in memory shared by every thread and process of the server, so the
// bucket is server-wide whatever the model; a held response blocks its task (an event loop's
// only thread too: a test fault, not a model's behaviour to measure).
#pragma once

#include <atomic>
#include <cstdint>

#include "options.hpp"

namespace ipclab::load {

class Gate {
 public:
  // The gate of --fault, in shared memory; nullptr when the fault holds nothing.
  static Gate* create(const ServeOptions& o);
  // The READY instant, which the stall's seconds count from.
  void open(std::int64_t ready_ns) noexcept { ready_.store(ready_ns); }
  // Returns when the RESPONSE to a request fully read at read_ns may be sent.
  void hold(std::int64_t read_ns) noexcept;

  // The instant a response may go (no waiting): for tests and for hold.
  std::int64_t stall_end(std::int64_t read_ns) const noexcept;
  std::int64_t take_token(std::int64_t now) noexcept;

 private:
  Gate(Fault fault, std::uint64_t per_s) noexcept;

  Fault fault_;
  std::int64_t interval_ns_;   // capacity: 10⁹ / N
  std::int64_t tolerance_ns_;  // capacity: (bucket − 1) × interval: that many go at once
  std::atomic<std::int64_t> ready_{0};
  // capacity: the theoretical arrival time of the next token (GCRA, the token bucket's
  // equivalent that one atomic can keep): 0, a full bucket.
  std::atomic<std::int64_t> next_token_{0};
};

}  // namespace ipclab::load
