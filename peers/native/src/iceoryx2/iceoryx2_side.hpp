// iceoryx2 for iceoryx2 and iceoryx2-spin (PROTOCOL.md 4.12), over ipclab's C binding of the
// iceoryx2 crate (peers/native/iceoryx2/: a Rust static library, include/ipclab_iceoryx2.h): one
// Side is one node with the two publish-subscribe services (and, unless it spins, the two event
// services) and its ports, closed when it goes out of scope; the binding's codes as PeerErrors.
// Built only where cargo is found (cmake/message_libraries.cmake); main() then installs the hooks
// (iceoryx2_hooks.hpp) that the table's rows go through.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "ipclab_iceoryx2.h"

namespace ipclab::iceoryx2 {

void install();  // iceoryx2_client.cpp: the hooks of iceoryx2_hooks.hpp

// "iceoryx2 0.10.0": the crate the binding was built with (capabilities' `library`).
std::string library_version();

// The prefix iceoryx2 gives every file and shared-memory object of a server's: the POSIX name
// "/ipclab-<pid>" of READY's endpoint as "ipclab-<pid>-" (4.12, 4.1's tag).
std::string prefix_of(const std::string& posix_name);

// A code other than IPCLAB_IX2_OK as a PeerError (timeout, io, internal) naming `what` and the
// binding's message.
[[noreturn]] void fail(int code, const std::string& what);

class Side {
 public:
  struct Options {
    bool server = false;  // creates the services; a client opens them
    bool spin = false;    // iceoryx2-spin: polls, no event services
    std::string root, prefix;
    std::size_t initial_slice_len = 64;  // the publisher's first pool, grown as a power of two
    std::int64_t send_timeout_ns = -1;   // how long a send waits for room; negative: for ever
  };
  // Sets the umask to 077 first (iceoryx2 makes some objects 0666; 4.12), then makes the node,
  // the services and the ports.
  explicit Side(const Options& o);
  ~Side() { ipclab_ix2_close(side_); }
  Side(const Side&) = delete;
  Side& operator=(const Side&) = delete;

  // One sample of exactly n bytes, its first `written` (all, unless --sample-write header:
  // the header) written from p into the loaned sample, sent (and notified).
  void send(const std::uint8_t* p, std::size_t n, std::size_t written) {
    std::uint8_t* sample = nullptr;
    if (const int rc = ipclab_ix2_loan(side_, n, &sample); rc != IPCLAB_IX2_OK)
      fail(rc, "loan a sample of " + std::to_string(n) + " bytes");
    if (written != 0) std::memcpy(sample, p, written < n ? written : n);
    if (const int rc = ipclab_ix2_send_loaned(side_); rc != IPCLAB_IX2_OK)
      fail(rc, "send a sample of " + std::to_string(n) + " bytes");
  }
  // The next sample within timeout_ns (negative: however long it takes; empty data and false
  // past it), held where it lies until release() or the next receive.
  bool receive(std::int64_t timeout_ns, std::span<const std::uint8_t>& sample) {
    const std::uint8_t* p = nullptr;
    std::size_t n = 0;
    const int rc = ipclab_ix2_receive(side_, timeout_ns, &p, &n);
    if (rc == IPCLAB_IX2_TIMEOUT) return false;
    if (rc != IPCLAB_IX2_OK) fail(rc, "receive a sample");
    sample = {p, n};
    return true;
  }
  void release() noexcept { ipclab_ix2_release(side_); }

 private:
  ipclab_ix2_side* side_ = nullptr;
};

}  // namespace ipclab::iceoryx2
