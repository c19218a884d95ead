#include "burst/client.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <new>
#include <vector>

#include "burst/records.hpp"
#include "error.hpp"
#include "frame.hpp"
#include "patterns.hpp"  // now_ns
#include "payload.hpp"
#include "release_at.hpp"

namespace ipclab::burst {

namespace {

constexpr std::size_t kStackBytes = 256 * 1024;  // a connector needs little; 1000 of them

// What all connectors of all processes share (one MAP_SHARED mapping).
struct Shared {
  pthread_barrier_t barrier;
  // --release-at only: where all wait while the barrier's serial thread sleeps until the agreed
  // instant; it opens once that thread has stamped the release and arrives.
  pthread_barrier_t gate;
  // The release: the latest arrival at the barrier, stamped by each connector before it waits,
  // so it precedes every connection (the barrier opens only after the last arrival's stamp);
  // with --release-at, stamped after the sleep, before the gate opens.
  std::atomic<std::int64_t> release;
  std::int64_t release_late;  // --release-at: CLOCK_REALTIME at the release - the agreed instant
  std::atomic<int> invalid;  // 0 until the first RESPONSE that fails validation
  std::int32_t invalid_kind;
  char invalid_text[240];
  ConnRecord records[];
};

struct Burst {
  const DriveOptions& o;
  detail::ResolvedAddress address;
  Shared* shared;
  std::uint32_t all_connectors;  // T × P
  std::vector<std::uint8_t> request;   // header + base payload, unstamped
  std::vector<std::uint8_t> response;  // the expected RESPONSE payload base
};

ConnError connect_error(int err) {
  switch (err) {
    case ECONNREFUSED: return ConnError::refused;
    case ECONNRESET: return ConnError::reset;
    case EINPROGRESS:  // SO_SNDTIMEO ran out (connect(2))
    case ETIMEDOUT:
    case EAGAIN: return ConnError::timeout;
    default: return ConnError::io;
  }
}

ConnError transfer_error(int err) {
  if (err == EAGAIN || err == EWOULDBLOCK) return ConnError::timeout;  // SO_RCVTIMEO
  return err == ECONNRESET || err == EPIPE ? ConnError::reset : ConnError::io;
}

void set_timeouts(int fd, std::int64_t ns) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  tv.tv_usec = static_cast<suseconds_t>((ns % 1'000'000'000) / 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

// Sends the request and receives the whole response (or what came before the failure).
ConnError exchange(int fd, const std::uint8_t* request, std::size_t request_total,
                   std::uint8_t* reply, std::size_t response_total) {
  for (std::size_t sent = 0; sent < request_total;) {
    const ssize_t w = ::send(fd, request + sent, request_total - sent, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      return transfer_error(errno);
    }
    sent += static_cast<std::size_t>(w);
  }
  for (std::size_t got = 0; got < response_total;) {
    const ssize_t r = ::recv(fd, reply + got, response_total - got, 0);
    if (r == 0) return ConnError::eof;
    if (r < 0) {
      if (errno == EINTR) continue;
      return transfer_error(errno);
    }
    got += static_cast<std::size_t>(r);
  }
  return ConnError::none;
}

// The RESPONSE's checks (sections 2-3), after the clock; the first failure is kept for the
// result. Returns whether it passed.
bool validate(Burst& b, const std::uint8_t* reply, std::uint64_t i) {
  const DriveOptions& o = b.o;
  ErrorKind kind = ErrorKind::protocol;
  std::string why;
  if (auto bad = check_reply_header(decode_header(reply), FrameKind::response, i, o.response_size,
                                    o.request_size)) {
    why = *bad;
  } else if (const std::size_t off =
                 first_difference(reply + kHeaderSize, b.response.data(), o.response_size, i);
             off != kNoDifference) {
    kind = ErrorKind::payload_mismatch;
    why = "payload mismatch at offset " + std::to_string(off);
  } else {
    return true;
  }
  int expected = 0;
  if (b.shared->invalid.compare_exchange_strong(expected, 1)) {
    const std::string text = why + " (connection " + std::to_string(i) + ")";
    std::strncpy(b.shared->invalid_text, text.c_str(), sizeof b.shared->invalid_text - 1);
    b.shared->invalid_kind = static_cast<std::int32_t>(kind);
  }
  return false;
}

// One connection (11.4 "Client" step 3), recorded whatever happens.
void one_connection(Burst& b, std::uint64_t i, std::vector<std::uint8_t>& request,
                    std::vector<std::uint8_t>& reply, ConnRecord& rec) {
  const DriveOptions& o = b.o;
  std::uint8_t* req = request.data();
  store_le64(req + kOffSequence, i);
  stamp_from(req + kHeaderSize, b.request.data() + kHeaderSize, o.request_size, i);

  const std::int64_t t0 = now_ns();
  const int fd = ::socket(b.address.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ConnError error = ConnError::io;
  int rc = -1;
  if (fd >= 0) {
    set_timeouts(fd, o.io_timeout_ns);
    rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&b.address.addr), b.address.length);
    if (rc != 0) error = connect_error(errno);
  }
  const std::int64_t t1 = now_ns();
  std::int64_t t2 = t1;
  if (rc == 0) {
    error = exchange(fd, req, request.size(), reply.data(), reply.size());
    t2 = now_ns();
  }
  if (fd >= 0) ::close(fd);
  const std::int64_t t3 = now_ns();

  if (error == ConnError::none && !validate(b, reply.data(), i))
    error = static_cast<ErrorKind>(b.shared->invalid_kind) == ErrorKind::payload_mismatch
                ? ConnError::payload_mismatch
                : ConnError::protocol;
  rec.connect_start = t0;
  rec.connect_ns = t1 - t0;
  rec.response_ns = rc == 0 ? t2 - t1 : kEmpty;
  rec.total_ns = t3 - t0;
  rec.end = t3;
  rec.error = static_cast<std::int32_t>(error);
  rec.done = 1;
}

struct ConnectorArgs {
  Burst* burst;
  std::uint32_t process, connector;  // connector: g = process × T + thread
};

// The release is the latest arrival: each connector raises the shared maximum to its own.
void stamp_arrival(Shared& shared) {
  const std::int64_t arrival = now_ns();
  std::int64_t latest = shared.release.load(std::memory_order_relaxed);
  while (arrival > latest &&
         !shared.release.compare_exchange_weak(latest, arrival, std::memory_order_relaxed)) {
  }
}

// --release-at (11.4.4 step 2), in one thread once every connector has arrived: sleeps until
// the wall clock reads at_ns (hosts agree on the wall clock, not on the monotonic one), then
// stamps the release on both clocks, read back to back so the orchestrator can place the
// monotonic records on the agreed wall-clock line.
void release_at(Shared& shared, std::int64_t at_ns) {
  const WallRelease r = sleep_until_wall_clock(at_ns);
  shared.release.store(r.monotonic_ns, std::memory_order_relaxed);
  shared.release_late = r.late_ns;
}

void* connector_main(void* arg) {
  const ConnectorArgs& a = *static_cast<const ConnectorArgs*>(arg);
  Burst& b = *a.burst;
  std::vector<std::uint8_t> request = b.request;
  std::vector<std::uint8_t> reply(kHeaderSize + b.o.response_size);
  if (b.o.release_at_ns == 0) {
    stamp_arrival(*b.shared);
    ::pthread_barrier_wait(&b.shared->barrier);
  } else {
    // The sleep starts only once all have arrived, so set-up past the instant shows as lateness.
    if (::pthread_barrier_wait(&b.shared->barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
      release_at(*b.shared, b.o.release_at_ns);
    ::pthread_barrier_wait(&b.shared->gate);
  }
  for (std::uint64_t i = a.connector; i < b.o.connections; i += b.all_connectors) {
    ConnRecord& rec = b.shared->records[i];
    rec.process = static_cast<std::int32_t>(a.process);
    rec.connector = static_cast<std::int32_t>(a.connector);
    one_connection(b, i, request, reply, rec);
  }
  return nullptr;
}

// This process's T connectors; returns once all have made their connections.
void run_connectors(Burst& b, std::uint32_t process) {
  const std::uint32_t t = b.o.connectors;
  std::vector<ConnectorArgs> args(t);
  std::vector<pthread_t> threads(t);
  pthread_attr_t attr;
  ::pthread_attr_init(&attr);
  ::pthread_attr_setstacksize(&attr, kStackBytes);
  for (std::uint32_t k = 0; k < t; ++k) {
    args[k] = {&b, process, process * t + k};
    if (const int rc = ::pthread_create(&threads[k], &attr, connector_main, &args[k]); rc != 0) {
      // The barrier cannot be released without it: this process gives up (its children die
      // with it; a parent left waiting at the barrier is ended by the case's timeout).
      print_line(std::string("internal: pthread_create (connector ") + std::to_string(k) +
                 "): " + std::strerror(rc));
      _exit(exit_code(ErrorKind::internal));
    }
  }
  ::pthread_attr_destroy(&attr);
  for (const pthread_t thread : threads) ::pthread_join(thread, nullptr);
}

void init_barrier(pthread_barrier_t* barrier, std::uint32_t count) {
  pthread_barrierattr_t attr;
  ::pthread_barrierattr_init(&attr);
  ::pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  if (::pthread_barrier_init(barrier, &attr, count) != 0)
    throw PeerError(ErrorKind::internal, "pthread_barrier_init");
  ::pthread_barrierattr_destroy(&attr);
}

Shared* map_shared(const DriveOptions& o, std::uint32_t all_connectors) {
  const std::size_t bytes = sizeof(Shared) + o.connections * sizeof(ConnRecord);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw_io("mmap (burst records)");
  auto* shared = static_cast<Shared*>(p);
  static_assert(std::atomic<std::int64_t>::is_always_lock_free);  // shared between processes
  new (&shared->release) std::atomic<std::int64_t>(0);
  init_barrier(&shared->barrier, all_connectors);
  if (o.release_at_ns != 0) init_barrier(&shared->gate, all_connectors);
  return shared;
}

// Forks the other P - 1 processes (before any thread exists); each runs its connectors, exits.
std::vector<pid_t> fork_processes(Burst& b) {
  const pid_t parent = ::getpid();
  std::vector<pid_t> children;
  for (std::uint32_t p = 1; p < b.o.processes; ++p) {
    const pid_t pid = ::fork();
    if (pid < 0) throw_io("fork (burst process)");
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) _exit(0);
      run_connectors(b, p);
      _exit(0);
    }
    children.push_back(pid);
  }
  return children;
}

BurstReport summarise(const Burst& b) {
  BurstReport r;
  const DriveOptions& o = b.o;
  r.connections = o.connections;
  r.connectors = o.connectors;
  r.processes = o.processes;
  std::map<std::string, std::uint64_t> errors;
  const std::int64_t release = b.shared->release.load();
  std::int64_t last = release;
  for (std::uint64_t i = 0; i < o.connections; ++i) {
    const ConnRecord& rec = b.shared->records[i];
    if (rec.error == static_cast<std::int32_t>(ConnError::none)) ++r.ok;
    else ++errors[std::string(conn_error_name(static_cast<ConnError>(rec.error)))];
    if (rec.connect_ns > kSlowConnectNs) ++r.slow_connects;
    if (rec.end > last) last = rec.end;
  }
  r.failed = o.connections - r.ok;
  r.burst_ns = static_cast<std::uint64_t>(last - release);
  r.release_ns = release;
  if (o.release_at_ns != 0) r.release_late_ns = b.shared->release_late;
  r.errors.assign(errors.begin(), errors.end());
  return r;
}

}  // namespace

void run_burst_client(const DriveOptions& o, const Sockets& sockets, Recorder& recorder) {
  const std::uint32_t all = o.connectors * o.processes;
  Burst b{o, sockets.address(o.endpoint), map_shared(o, all), all, {}, {}};
  b.request.resize(kHeaderSize + o.request_size);
  encode_header(b.request.data(), FrameKind::request, 0, o.request_size, o.response_size);
  fill_base(o.seed, PayloadStream::request, b.request.data() + kHeaderSize, o.request_size);
  b.response = make_base(o.seed, PayloadStream::response, o.response_size);

  const std::vector<pid_t> children = fork_processes(b);
  run_connectors(b, 0);
  bool lost = false;
  for (const pid_t pid : children) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    lost = lost || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  for (std::uint64_t i = 0; i < o.connections; ++i) lost = lost || b.shared->records[i].done != 1;
  if (lost) throw PeerError(ErrorKind::internal, "a burst process ended before its connections");

  write_file_atomically(o.records_file, format_records(b.shared->records, o.connections));
  for (std::uint64_t i = 0; i < o.connections; ++i)
    if (b.shared->records[i].error == static_cast<std::int32_t>(ConnError::none))
      recorder.record_measured(b.shared->records[i].total_ns);
  recorder.report(summarise(b));
  if (b.shared->invalid.load() != 0)
    throw PeerError(static_cast<ErrorKind>(b.shared->invalid_kind), b.shared->invalid_text);
}

}  // namespace ipclab::burst
