// shm, shm-spin, shm-futex (PROTOCOL.md 4.3): one POSIX shared memory object with a one-slot
// hand-off per direction. Each side writes only its own 64-byte line (its seq, its ack of the
// other direction, its message length and messages of at most 48 bytes inline) and only reads
// the other side's, so a small round trip moves one line each way, as the cache-line ping-pong
// floor does. No system call on the fast path: a side that finds its condition true goes on;
// otherwise it spins (pause hint), sleeps on the futex, or spins --spin-us and then sleeps.
// Counters are u32, accessed through std::atomic_ref.
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

#include "../error.hpp"
#include "../lifecycle.hpp"
#include "message.hpp"
#include "timeout.hpp"

namespace ipclab {

namespace {

constexpr std::size_t kShmSlot = 1048576;                   // M
constexpr std::size_t kShmSlotsOffset = 4096;
constexpr std::size_t kShmSize = kShmSlotsOffset + 2 * kShmSlot;  // 2101248
constexpr std::size_t kShmInline = 48;  // messages up to this size travel in the sender's line
constexpr std::size_t kLineSize = 64;   // line d (0: client, 1: server) at d * 64
constexpr std::size_t kSleepersOffset = 128;  // sleepers of direction d at 128 + d * 64

using Word = std::atomic_ref<std::uint32_t>;
static_assert(Word::required_alignment <= 4);

inline void cpu_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// One side's line: written by that side only. seq counts the messages it published in its
// sending direction, ack the messages it consumed of its receiving direction.
struct alignas(64) Line {
  std::uint32_t seq;
  std::uint32_t ack;
  std::uint32_t length;
  std::uint32_t reserved;
  std::uint8_t message[kShmInline];
};
static_assert(sizeof(Line) == kLineSize);

class PosixShmChannel final : public MessageChannel {
 public:
  // side: 0 = client (sends direction 1, line at 0), 1 = server (sends direction 2, line at 64).
  // timeout_ns 0: wait without limit.
  PosixShmChannel(std::uint8_t* base, int side, ShmWait wait, std::uint64_t spin_us,
                  std::int64_t timeout_ns)
      : MessageChannel(kShmSlot),
        base_(base),
        own_(reinterpret_cast<Line*>(base + side * kLineSize)),
        peer_(reinterpret_cast<Line*>(base + (1 - side) * kLineSize)),
        send_sleepers_(
            reinterpret_cast<std::uint32_t*>(base + kSleepersOffset + side * kLineSize)),
        receive_sleepers_(
            reinterpret_cast<std::uint32_t*>(base + kSleepersOffset + (1 - side) * kLineSize)),
        send_slot_(base + kShmSlotsOffset + side * kShmSlot),
        receive_slot_(base + kShmSlotsOffset + (1 - side) * kShmSlot),
        // A server serves clients one after another on the same object: a client takes the
        // counters where the previous one left them.
        seq_(Word(own_->seq).load(std::memory_order_relaxed)),
        ack_(Word(own_->ack).load(std::memory_order_relaxed)),
        wait_(wait),
        spin_ns_(static_cast<std::int64_t>(spin_us) * 1000),
        timeout_ns_(timeout_ns) {}
  ~PosixShmChannel() override { ::munmap(base_, kShmSize); }

  void send(const std::uint8_t* p, std::size_t n) override {
    // Only the free slot needs the peer's line, and seldom even that: peer_ack_ (read along
    // with the peer's seq on the previous receive) usually already says the slot is free.
    if (peer_ack_ != seq_)
      peer_ack_ = wait_until(send_sleepers_, &peer_->ack,
                             [s = seq_](std::uint32_t a) { return a == s; });
    std::memcpy(n <= kShmInline ? own_->message : send_slot_, p, n);
    Word(own_->length).store(static_cast<std::uint32_t>(n), std::memory_order_relaxed);
    Word(own_->seq).store(++seq_, std::memory_order_release);
    wake(send_sleepers_, &own_->seq);
  }

  std::size_t receive(std::uint8_t* dst) override {
    wait_until(receive_sleepers_, &peer_->seq,
               [a = ack_](std::uint32_t s) { return s != a; });
    // The peer's line is in this core's cache now: its ack (for our next send) and length come
    // with it.
    peer_ack_ = Word(peer_->ack).load(std::memory_order_acquire);
    const std::uint32_t n = Word(peer_->length).load(std::memory_order_relaxed);
    std::size_t k = 0;
    if (n <= kShmInline) {
      k = n;
      std::memcpy(dst, peer_->message, k);
    } else {
      k = n < kShmSlot ? n : kShmSlot;
      std::memcpy(dst, receive_slot_, k);
    }
    Word(own_->ack).store(++ack_, std::memory_order_release);
    wake(receive_sleepers_, &own_->ack);
    if (n > kShmSlot)
      throw PeerError(ErrorKind::protocol,
                      "slot length " + std::to_string(n) + " above 1048576");
    return k;
  }

 private:
  // Returns the value of w, read with acquire ordering, for which cond holds. sleepers: the
  // sleepers word of the direction w belongs to.
  template <class Cond>
  std::uint32_t wait_until(std::uint32_t* sleepers, std::uint32_t* w, Cond cond) {
    if (const std::uint32_t v = Word(*w).load(std::memory_order_acquire); cond(v))
      return v;  // the fast path
    std::int64_t deadline = 0;  // CLOCK_MONOTONIC ns; set lazily, 0: not yet known
    if (wait_ != ShmWait::futex) {
      // spin: until the timeout (client) or forever (server); hybrid: for spin_ns.
      const std::int64_t limit = wait_ == ShmWait::spin ? timeout_ns_ : spin_ns_;
      if (wait_ == ShmWait::spin || limit > 0) {
        std::int64_t spin_end = 0;
        for (std::uint32_t i = 1;; ++i) {
          // One load of the peer's line per turn and nothing else: the line stays shared here
          // until the peer's store invalidates it, and then comes over once.
          cpu_pause();
          if (const std::uint32_t v = Word(*w).load(std::memory_order_acquire); cond(v))
            return v;
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
    return futex_wait(sleepers, w, cond, deadline);
  }

  template <class Cond>
  std::uint32_t futex_wait(std::uint32_t* sleepers_word, std::uint32_t* w, Cond cond,
                           std::int64_t deadline) {
    if (timeout_ns_ != 0 && deadline == 0) deadline = monotonic_ns() + timeout_ns_;
    Word sleepers(*sleepers_word);
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    struct Leave {
      Word& s;
      ~Leave() { s.fetch_sub(1, std::memory_order_seq_cst); }
    } leave{sleepers};
    for (;;) {
      const std::uint32_t v = Word(*w).load(std::memory_order_seq_cst);
      if (cond(v)) return v;
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

  void wake(std::uint32_t* sleepers, std::uint32_t* w) noexcept {
    if (wait_ == ShmWait::spin) return;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (Word(*sleepers).load(std::memory_order_relaxed) != 0)
      ::syscall(SYS_futex, w, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
  }

  std::uint8_t* base_;
  Line* own_;   // written here only
  Line* peer_;  // read here only
  std::uint32_t* send_sleepers_;     // our sending direction's: waits on our seq, peer's ack
  std::uint32_t* receive_sleepers_;  // our receiving direction's: peer's seq, our ack
  std::uint8_t* send_slot_;
  std::uint8_t* receive_slot_;
  std::uint32_t seq_;  // copies of our own line's counters, so we never read them back
  std::uint32_t ack_;
  std::uint32_t peer_ack_ = 0;  // the peer's ack as last read; seq_ when our slot is known free
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
  return {std::make_unique<PosixShmChannel>(map_object(fd), 1, wait, spin_us, 0),
          "posix:" + prefix};
}

std::unique_ptr<MessageChannel> open_posix_shm(const PosixNameEndpoint& endpoint, ShmWait wait,
                                               std::uint64_t spin_us, std::int64_t timeout_ns) {
  const std::string name = endpoint.prefix + "-shm";
  const int fd = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) throw_io("shm_open " + name);
  Fd guard{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw_io("fstat " + name);
  if (static_cast<std::uint64_t>(st.st_size) < kShmSize)
    throw PeerError(ErrorKind::io, "shared memory " + name + " has " +
                                       std::to_string(st.st_size) + " bytes, not 2101248");
  return std::make_unique<PosixShmChannel>(map_object(fd), 0, wait, spin_us, timeout_ns);
}

}  // namespace ipclab
