// load (PROTOCOL.md 11.5.3) with a thread per connection, for transports whose calls block: an
// RPC framework's stub call (11.5.4), a message queue's receive (11.5.5; System V queues cannot
// be polled). Request k goes on connection k mod C at T0 + o_k, or as soon as that connection's
// previous request has been answered if that is later. The schedule, the records and what
// becomes of them are the same as the tcp client's (report.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "load/report.hpp"
#include "options.hpp"
#include "result.hpp"

namespace ipclab::load {

// The first failure that makes the client exit with its kind (protocol, payload mismatch, END's
// or finish's), kept across threads.
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

// One persistent connection, driven by a thread of its own.
class Connection {
 public:
  virtual ~Connection() = default;
  // Before `sent`, untimed: makes request k ready (its sequence and stamp).
  virtual void prepare(std::uint64_t k) = 0;
  // Between `sent` and `received`: sends request k and takes its whole answer. A PeerError is the
  // request's error (its kind: timeout, protocol, else io) and ends the connection.
  virtual void exchange(std::uint64_t k) = 0;
  // After `received`: the answer's checks; a failure is noted in verdict (with its sequence) and
  // returned: protocol ends the connection (the framing is in doubt), payload-mismatch does not.
  virtual ConnError check(std::uint64_t k, Verdict& verdict) = 0;
  // After its last request (untimed): END or finish; returns the server's corrupted count.
  // Throws PeerError.
  virtual std::uint64_t finish() = 0;
};

// Runs run's schedule over conns (made already: T0 is read here, with --release-at once the wall
// clock reads it), one thread per connection; then writes the records file, the samples and the
// result's figures, and throws the first failure (a non-zero corrupted sum included). end_call
// names the closing call in errors.
void run_threaded(Run& run, std::vector<std::unique_ptr<Connection>>& conns,
                  const DriveOptions& o, Recorder& recorder, std::string_view end_call);

// A request's error from the kind of the PeerError that ended it.
ConnError conn_error(ErrorKind kind) noexcept;

}  // namespace ipclab::load
