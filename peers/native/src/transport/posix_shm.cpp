// shm, shm-spin, shm-futex (PROTOCOL.md 4.3): one POSIX shared memory object with a one-slot
// hand-off per direction, counted by seq (published, written by the sender) and ack (consumed,
// written by the receiver). No system call on the fast path: a side that finds its condition
// true goes on; otherwise it spins (pause hint), sleeps on the futex, or spins --spin-us and then
// sleeps. Counters are u32 on their own cache lines, accessed through std::atomic_ref.
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "../cli.hpp"
#include "../error.hpp"
#include "../lifecycle.hpp"
#include "message.hpp"
#include "timeout.hpp"

namespace ipclab {

namespace {

constexpr std::size_t kShmSlot = 1048576;                   // M
constexpr std::size_t kShmSlotsOffset = 4096;
constexpr std::size_t kShmSize = kShmSlotsOffset + 2 * kShmSlot;  // 2101248
constexpr std::size_t kDirectionStride = 256;  // direction 2's counters start at 256
constexpr std::size_t kOffSeq = 0, kOffAck = 64, kOffLength = 128, kOffSleepers = 192;

using Word = std::atomic_ref<std::uint32_t>;
static_assert(Word::required_alignment <= 4);

inline void cpu_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

struct Direction {
  std::uint32_t* seq;
  std::uint32_t* ack;
  std::uint32_t* length;
  std::uint32_t* sleepers;
  std::uint8_t* slot;
};

Direction direction_at(std::uint8_t* base, int d) {  // d: 0 = direction 1, 1 = direction 2
  std::uint8_t* c = base + d * kDirectionStride;
  return {reinterpret_cast<std::uint32_t*>(c + kOffSeq),
          reinterpret_cast<std::uint32_t*>(c + kOffAck),
          reinterpret_cast<std::uint32_t*>(c + kOffLength),
          reinterpret_cast<std::uint32_t*>(c + kOffSleepers),
          base + kShmSlotsOffset + d * kShmSlot};
}

class PosixShmChannel final : public MessageChannel {
 public:
  // send_dir/receive_dir: 0 = direction 1, 1 = direction 2. timeout_ns 0: wait without limit.
  PosixShmChannel(std::uint8_t* base, int send_dir, int receive_dir, ShmWait wait,
                  std::uint64_t spin_us, std::int64_t timeout_ns)
      : MessageChannel(kShmSlot),
        base_(base),
        send_(direction_at(base, send_dir)),
        receive_(direction_at(base, receive_dir)),
        wait_(wait),
        spin_ns_(static_cast<std::int64_t>(spin_us) * 1000),
        timeout_ns_(timeout_ns) {}
  ~PosixShmChannel() override { ::munmap(base_, kShmSize); }

  void send(const std::uint8_t* p, std::size_t n) override {
    const std::uint32_t s = Word(*send_.seq).load(std::memory_order_relaxed);  // our own word
    wait_until(send_, send_.ack, [s](std::uint32_t a) { return a == s; });      // slot free
    std::memcpy(send_.slot, p, n);
    Word(*send_.length).store(static_cast<std::uint32_t>(n), std::memory_order_relaxed);
    Word(*send_.seq).store(s + 1, std::memory_order_release);
    wake(send_, send_.seq);
  }

  std::size_t receive(std::uint8_t* dst) override {
    const std::uint32_t a = Word(*receive_.ack).load(std::memory_order_relaxed);  // our own
    wait_until(receive_, receive_.seq, [a](std::uint32_t s) { return s != a; });  // a message
    const std::uint32_t n = Word(*receive_.length).load(std::memory_order_relaxed);
    const std::size_t k = n < kShmSlot ? n : kShmSlot;
    std::memcpy(dst, receive_.slot, k);
    Word(*receive_.ack).store(a + 1, std::memory_order_release);
    wake(receive_, receive_.ack);
    if (n > kShmSlot)
      throw PeerError(ErrorKind::protocol,
                      "slot length " + std::to_string(n) + " above 1048576");
    return k;
  }

 private:
  // Returns once cond(w) holds, having read w with acquire ordering.
  template <class Cond>
  void wait_until(const Direction& d, std::uint32_t* w, Cond cond) {
    if (cond(Word(*w).load(std::memory_order_acquire))) return;  // the fast path
    std::int64_t deadline = 0;  // CLOCK_MONOTONIC ns; set lazily, 0: not yet known
    if (wait_ != ShmWait::futex) {
      // spin: until the timeout (client) or forever (server); hybrid: for spin_ns.
      const std::int64_t limit = wait_ == ShmWait::spin ? timeout_ns_ : spin_ns_;
      if (wait_ == ShmWait::spin || limit > 0) {
        std::int64_t spin_end = 0;
        for (std::uint32_t i = 1;; ++i) {
          cpu_pause();
          if (cond(Word(*w).load(std::memory_order_acquire))) return;
          if (limit == 0 || (i & 63) != 0) continue;  // the clock every 64 pauses
          const std::int64_t now = monotonic_ns();
          if (spin_end == 0) {
            spin_end = now + limit;
            if (timeout_ns_ != 0) deadline = now + timeout_ns_;
          } else if (now >= spin_end) {
            if (wait_ == ShmWait::spin) throw_timeout();
            break;
          }
        }
      }
    }
    futex_wait(d, w, cond, deadline);
  }

  template <class Cond>
  void futex_wait(const Direction& d, std::uint32_t* w, Cond cond, std::int64_t deadline) {
    if (timeout_ns_ != 0 && deadline == 0) deadline = monotonic_ns() + timeout_ns_;
    Word sleepers(*d.sleepers);
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    struct Leave {
      Word& s;
      ~Leave() { s.fetch_sub(1, std::memory_order_seq_cst); }
    } leave{sleepers};
    for (;;) {
      const std::uint32_t v = Word(*w).load(std::memory_order_seq_cst);
      if (cond(v)) return;
      timespec rel{};
      timespec* timeout = nullptr;
      if (timeout_ns_ != 0) {
        const std::int64_t left = deadline - monotonic_ns();
        if (left <= 0) throw_timeout();
        rel.tv_sec = static_cast<time_t>(left / 1'000'000'000);
        rel.tv_nsec = static_cast<long>(left % 1'000'000'000);
        timeout = &rel;
      }
      if (::syscall(SYS_futex, w, FUTEX_WAIT, v, timeout, nullptr, 0) != 0 && errno != EAGAIN &&
          errno != EINTR && errno != ETIMEDOUT)
        throw_io("futex(FUTEX_WAIT)");
    }
  }

  void wake(const Direction& d, std::uint32_t* w) noexcept {
    if (wait_ == ShmWait::spin) return;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (Word(*d.sleepers).load(std::memory_order_relaxed) != 0)
      ::syscall(SYS_futex, w, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
  }

  std::uint8_t* base_;
  Direction send_, receive_;
  ShmWait wait_;
  std::int64_t spin_ns_;
  std::int64_t timeout_ns_;
};

std::uint8_t* map_object(int fd) {
  void* p = ::mmap(nullptr, kShmSize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) throw_io("mmap");
  return static_cast<std::uint8_t*>(p);
}

struct Fd {
  int fd;
  ~Fd() { ::close(fd); }
};

}  // namespace

ShmWait shm_wait(Mechanism m) noexcept {
  return m == Mechanism::shm_spin ? ShmWait::spin
         : m == Mechanism::shm_futex ? ShmWait::futex
                                     : ShmWait::hybrid;
}

MessageServer create_posix_shm(ShmWait wait, std::uint64_t spin_us) {
  const std::string prefix = "/ipclab-" + std::to_string(::getpid());
  const std::string name = prefix + "-shm";
  int fd;
  {
    SignalBlock block;  // created and registered together, or neither
    fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      if (errno == EEXIST) throw PeerError(ErrorKind::io, "path exists: shared memory " + name);
      throw_io("shm_open " + name);
    }
    register_created(CreatedKind::posix_shm, name);
  }
  Fd guard{fd};
  if (::ftruncate(fd, static_cast<off_t>(kShmSize)) != 0) throw_io("ftruncate " + name);
  return {std::make_unique<PosixShmChannel>(map_object(fd), 1, 0, wait, spin_us, 0),
          "posix:" + prefix};
}

std::unique_ptr<MessageChannel> open_posix_shm(const std::string& endpoint, ShmWait wait,
                                               std::uint64_t spin_us, std::int64_t timeout_ns) {
  const std::string name = parse_posix_endpoint(endpoint) + "-shm";
  const int fd = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) throw_io("shm_open " + name);
  Fd guard{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw_io("fstat " + name);
  if (static_cast<std::uint64_t>(st.st_size) < kShmSize)
    throw PeerError(ErrorKind::io, "shared memory " + name + " has " +
                                       std::to_string(st.st_size) + " bytes, not 2101248");
  return std::make_unique<PosixShmChannel>(map_object(fd), 0, 1, wait, spin_us, timeout_ns);
}

}  // namespace ipclab
