// The iceoryx2 server (PROTOCOL.md 4.12): one Side that creates the services in the directory it
// is given, READY naming its prefix and the directory; each sample on ipclab/requests taken as a
// frame where it lies and answered as a section 2 server would (WholeFrameServer, server.hpp)
// with one sample on ipclab/responses (an empty one for a rejected frame), or, while a MARK's
// messages are due, counted. The request's payload is checked after the answer went out, still
// in its sample, which is released only then. With --sample-write header a RESPONSE's header
// alone is written into its sample and a REQUEST's payload is not read (4.12).
//
// Stopping: the node is dropped before the process ends (its ports and services go, and then
// the server removes every /dev/shm/<prefix>* it leaves, 4.12), so SIGTERM and SIGINT (stdin's
// end comes as SIGTERM, lifecycle.cpp) only set a flag here, which the loop looks at between
// samples and at least every kStopCheckNs while it waits; should the loop not come back within
// kStopGraceS (a send that waits for room for ever), SIGALRM removes those objects from the
// handler and ends the process.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <optional>
#include <span>
#include <string>

#include "error.hpp"
#include "frame.hpp"
#include "iceoryx2_side.hpp"
#include "lifecycle.hpp"
#include "options.hpp"
#include "result.hpp"
#include "server.hpp"
#include "server_common.hpp"

namespace ipclab::iceoryx2 {

namespace {

constexpr std::int64_t kStopCheckNs = 100'000'000;  // the longest wait between looks at the flag
constexpr unsigned kStopGraceS = 2;
// The response pool's first slice; larger answers grow it (PowerOfTwo) in the warm-up.
constexpr std::size_t kInitialResponseSlice = 65536;

volatile sig_atomic_t g_stop = 0;
char g_prefix[256];  // "ipclab-<pid>-": what the fallback removes from /dev/shm

// Unlinks every /dev/shm/<g_prefix>*. Async-signal-safe: open, getdents64, unlinkat, close.
void remove_shared_memory_now() noexcept {
  const int dir = ::open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  const std::size_t prefix = std::strlen(g_prefix);
  alignas(8) char buf[4096];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      struct Entry {
        std::uint64_t ino;
        std::int64_t off;
        unsigned short reclen;
        unsigned char type;
        char name[1];
      };
      const auto* e = reinterpret_cast<const Entry*>(buf + at);
      if (prefix != 0 && std::strncmp(e->name, g_prefix, prefix) == 0)
        ::unlinkat(dir, e->name, 0);
      at += e->reclen;
    }
  }
  ::close(dir);
}

void on_stop(int) {
  g_stop = 1;
  ::alarm(kStopGraceS);
}

void on_overdue(int) {
  remove_shared_memory_now();
  exit_process(0);
}

void install_stop_handlers(const std::string& prefix) {
  std::memcpy(g_prefix, prefix.c_str(), std::min(prefix.size() + 1, sizeof g_prefix - 1));
  struct sigaction sa {};
  sa.sa_handler = on_overdue;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, nullptr);
  install_termination_handler(on_stop);
}

class Responder {
 public:
  Responder(const ServeOptions& o, Side& side)
      : side_(side), frames_(o), header_only_(o.sample_header_only) {}

  // Until the flag is set.
  void run() {
    std::span<const std::uint8_t> sample;
    while (g_stop == 0) {
      if (!side_.receive(kStopCheckNs, sample)) continue;
      answer(sample);
      side_.release();
    }
  }

 private:
  void answer(std::span<const std::uint8_t> sample) {
    const bool message = frames_.pending() != 0;
    const ipclab::Responder::Answer a = frames_.take(sample.data(), sample.size());
    if (message) return;  // a stream message: counted, no answer
    if (a.size == 0) {    // rejected (and said): the empty answer (4.12)
      side_.send(nullptr, 0, 0);
      return;
    }
    // --sample-write header: a RESPONSE's header alone is written, a request's payload not read.
    const bool response = a.data[kOffKind] == static_cast<std::uint8_t>(FrameKind::response);
    side_.send(a.data, a.size, header_only_ && response ? kHeaderSize : a.size);
    frames_.done(!header_only_);  // out: the request's payload is checked now, in its sample
  }

  Side& side_;
  WholeFrameServer frames_;
  const bool header_only_;  // --sample-write header (4.12)
};

}  // namespace

void serve(const ServeOptions& o) {
  const std::string& dir = endpoint_as<DirEndpoint>(o.endpoint).path;
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw PeerError(ErrorKind::io, "iceoryx2: " + dir + " is not a directory (the server's "
                                   "--endpoint is the directory iceoryx2 keeps its files in)");
  const std::string name = "/ipclab-" + std::to_string(::getpid());
  Side::Options s;
  s.server = true;
  s.spin = o.mechanism_name == "iceoryx2-spin";
  s.root = dir;
  s.prefix = prefix_of(name);
  s.initial_slice_len = kInitialResponseSlice;
  install_stop_handlers(s.prefix);
  {
    std::optional<Side> side;
    try {
      side.emplace(s);
    } catch (...) {
      remove_shared_memory_now();  // what a half-made node left
      throw;
    }
    announce_ready("posix:" + name + "," + dir, o.mechanism_name);
    Responder(o, *side).run();
  }  // the node goes; then what it leaves (the Side's close)
  exit_process(0);
}

}  // namespace ipclab::iceoryx2
