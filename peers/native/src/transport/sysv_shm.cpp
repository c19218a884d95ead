// sysv-shm (Shm+Sem): one System V segment with a 1 MiB slot per direction and one set of four
// semaphores (EMPTY/FULL per direction), both under the same tagged key. PROTOCOL.md 4.1.
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>

#include <cerrno>
#include <cstring>

#include "../error.hpp"
#include "../frame.hpp"
#include "../lifecycle.hpp"
#include "message.hpp"
#include "timeout.hpp"

namespace ipclab {

namespace {

constexpr std::size_t kSlot = 1048576;                    // M
constexpr std::size_t kSlotStride = 8 + kSlot;            // u64 length + bytes
constexpr std::size_t kSegmentSize = 2 * kSlotStride;     // 2097168
// Semaphore numbers: direction d (0 or 1 here for directions 1 and 2) has EMPTY 2d, FULL 2d+1.
constexpr unsigned short empty_sem(int d) { return static_cast<unsigned short>(2 * d); }
constexpr unsigned short full_sem(int d) { return static_cast<unsigned short>(2 * d + 1); }

class SysvShmChannel final : public MessageChannel {
 public:
  // send_dir/receive_dir: 0 = direction 1, 1 = direction 2. timeout_ns 0: wait without limit.
  SysvShmChannel(std::uint8_t* segment, int semid, int send_dir, int receive_dir,
                 std::int64_t timeout_ns)
      : MessageChannel(kSlot),
        segment_(segment),
        semid_(semid),
        send_dir_(send_dir),
        receive_dir_(receive_dir),
        timed_(timeout_ns != 0) {
    timeout_.tv_sec = static_cast<time_t>(timeout_ns / 1'000'000'000);
    timeout_.tv_nsec = static_cast<long>(timeout_ns % 1'000'000'000);
  }
  ~SysvShmChannel() override { ::shmdt(segment_); }

  void send(const std::uint8_t* p, std::size_t n) override {
    wait(empty_sem(send_dir_));
    std::uint8_t* slot = segment_ + send_dir_ * kSlotStride;
    store_le64(slot, n);
    std::memcpy(slot + 8, p, n);
    post(full_sem(send_dir_));
  }

  std::size_t receive(std::uint8_t* dst) override {
    wait(full_sem(receive_dir_));
    const std::uint8_t* slot = segment_ + receive_dir_ * kSlotStride;
    const std::uint64_t n = load_le64(slot);
    const std::size_t k = n < kSlot ? static_cast<std::size_t>(n) : kSlot;
    std::memcpy(dst, slot + 8, k);
    post(empty_sem(receive_dir_));
    if (n > kSlot)
      throw PeerError(ErrorKind::protocol,
                      "slot length " + std::to_string(n) + " above 1048576");
    return k;
  }


 private:
  void wait(unsigned short sem) {
    sembuf op{sem, -1, 0};
    for (;;) {
      const int r = timed_ ? ::semtimedop(semid_, &op, 1, &timeout_) : ::semop(semid_, &op, 1);
      if (r == 0) return;
      if (errno == EINTR) continue;
      if (errno == EAGAIN) throw_timeout();
      if (errno == EIDRM || errno == EINVAL) detail::throw_removed("semop");
      throw_io("semop");
    }
  }
  void post(unsigned short sem) {
    sembuf op{sem, 1, 0};
    for (;;) {
      if (::semop(semid_, &op, 1) == 0) return;
      if (errno == EINTR) continue;
      if (errno == EIDRM || errno == EINVAL) detail::throw_removed("semop");
      throw_io("semop");
    }
  }

  std::uint8_t* segment_;
  int semid_;
  int send_dir_, receive_dir_;
  bool timed_;
  timespec timeout_{};
};

std::uint8_t* attach(int shmid) {
  void* p = ::shmat(shmid, nullptr, 0);
  if (p == reinterpret_cast<void*>(-1)) throw_io("shmat");
  return static_cast<std::uint8_t*>(p);
}

}  // namespace

MessageServer create_sysv_shm() {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int key = detail::draw_sysv_key();
    SignalBlock block;  // created and registered together, or neither
    const int shmid = ::shmget(key, kSegmentSize, IPC_CREAT | IPC_EXCL | 0600);
    if (shmid < 0) {
      if (errno == EEXIST) continue;
      throw_io("shmget");
    }
    const int semid = ::semget(key, 4, IPC_CREAT | IPC_EXCL | 0600);
    if (semid < 0) {
      const int err = errno;
      ::shmctl(shmid, IPC_RMID, nullptr);
      if (err == EEXIST) continue;
      throw_io_errno("semget", err);
    }
    register_created(CreatedKind::sysv_shm, "", shmid);
    register_created(CreatedKind::sysv_sem, "", semid);
    unsigned short initial[4] = {1, 0, 1, 0};
    if (::semctl(semid, 0, SETALL, initial) != 0) throw_io("semctl(SETALL)");
    return {std::make_unique<SysvShmChannel>(attach(shmid), semid, 1, 0, 0),
            detail::describe_sysv_key(key)};
  }
  throw PeerError(ErrorKind::io, "shmget/semget: 100 tagged keys in use");
}

std::unique_ptr<MessageChannel> open_sysv_shm(const KeyEndpoint& endpoint,
                                              std::int64_t timeout_ns) {
  const int key = endpoint.key;
  const int shmid = ::shmget(key, 0, 0);
  if (shmid < 0) throw_io("shmget " + detail::describe_sysv_key(key));
  const int semid = ::semget(key, 0, 0);
  if (semid < 0) throw_io("semget " + detail::describe_sysv_key(key));
  shmid_ds info{};
  if (::shmctl(shmid, IPC_STAT, &info) != 0) throw_io("shmctl(IPC_STAT)");
  if (info.shm_segsz < kSegmentSize)
    throw PeerError(ErrorKind::io, "segment of " + std::to_string(info.shm_segsz) +
                                       " bytes, not 2097168");
  return std::make_unique<SysvShmChannel>(attach(shmid), semid, 0, 1, timeout_ns);
}

}  // namespace ipclab
