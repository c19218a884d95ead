// The arithmetic of pattern stream (PROTOCOL.md 11.1): the payload checksum (the sum mod 2^64 of
// the payload read as little-endian u64 words, the last one zero-padded), the one the client
// expects for a run of stamped payloads, each side's CPU figures (getrusage of itself), and the
// server's tally of the messages since MARK with the two stream faults.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ipclab {

static_assert(std::endian::native == std::endian::little, "the word sum reads words natively");

// The checksum of one payload: 32-byte blocks summed as two vectors of two u64 (GCC's vector
// extension: -O2 does not vectorise a loop of unknown length itself), then the remaining whole
// words, then the zero-padded tail.
inline std::uint64_t word_sum(const std::uint8_t* p, std::size_t n) noexcept {
  using u64x2 = std::uint64_t __attribute__((vector_size(16)));
  u64x2 a = {0, 0}, b = {0, 0};
  const std::size_t blocks = n & ~static_cast<std::size_t>(31);
  for (std::size_t i = 0; i < blocks; i += 32) {
    u64x2 x, y;
    std::memcpy(&x, p + i, 16);
    std::memcpy(&y, p + i + 16, 16);
    a += x;
    b += y;
  }
  a += b;
  std::uint64_t sum = a[0] + a[1];
  const std::size_t whole = n & ~static_cast<std::size_t>(7);
  for (std::size_t i = blocks; i < whole; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    sum += w;
  }
  if (whole < n) {
    std::uint64_t w = 0;
    std::memcpy(&w, p + whole, n - whole);
    sum += w;
  }
  return sum;
}

// What the server must report for the payloads payload(seed, 1, s, size), s = first ... first +
// count - 1: the base's word sum with its first word replaced by each stamped first word.
std::uint64_t expected_checksum(std::uint64_t seed, std::size_t size, std::uint64_t first,
                                std::uint64_t count);

// A process's own CPU time and context switches (getrusage(RUSAGE_SELF): all its threads).
struct CpuFigures {
  std::uint64_t user_ns = 0;
  std::uint64_t sys_ns = 0;
  std::uint64_t voluntary = 0;
  std::uint64_t involuntary = 0;

  static CpuFigures now() noexcept;
  // The figures from `start` to this one.
  CpuFigures since(const CpuFigures& start) const noexcept;
};

// The server's side of a stream: messages since MARK, their gaps, the checksum, the CPU
// figures from MARK to END, and the stream faults (section 11.1 "Faults"). A message carries no
// header: its sequence is its first min(8, S) bytes XOR the base's (known modulo 2^(8*S) when
// S < 8, so gaps are compared modulo the same).
class StreamTally {
 public:
  enum class Fault { none, drop_message, flip_byte };
  explicit StreamTally(Fault fault) noexcept : fault_(fault) {}

  // MARK with this sequence: the counts start again; the CPU figures are taken now.
  void restart(std::uint64_t mark_sequence) noexcept;
  // The same, and the messages that follow have `size` bytes whose unstamped first min(8, size)
  // bytes are base_head: add_message recovers their sequences.
  void restart(std::uint64_t mark_sequence, const std::uint8_t* base_head,
               std::size_t size) noexcept;
  // The sequence the next message should carry: a grpc streaming call (11.3) has no MARK, so
  // its gaps count from its first message's sequence.
  void expect(std::uint64_t sequence) noexcept { next_ = sequence; }
  // One message of the size restart() was given, read completely: its sequence from its stamp.
  void add_message(const std::uint8_t* message) noexcept {
    std::uint64_t word = 0;
    std::memcpy(&word, message, head_bytes_);
    const std::uint64_t stamp = (word ^ head_word_) & head_mask_;
    // The received sequence: next_'s high bits where the stamp does not reach (S < 8).
    add((next_ & ~head_mask_) | stamp, message, size_);
  }
  // udp: a datagram that is neither a control frame nor a message of the stream's size.
  void count_gap() noexcept { ++gaps_; }
  // One message with its sequence given (grpc's Chunk carries it), read completely.
  void add(std::uint64_t sequence, const std::uint8_t* payload, std::size_t n) noexcept {
    if (received_ == 1 && fault_ != Fault::none && !fault_done_) {
      fault_done_ = true;
      if (fault_ == Fault::drop_message) return;  // as if it was lost
      if (n > 0) sum_ += flipped_low_bit(payload, n);
    }
    if (sequence != next_) ++gaps_;
    next_ = sequence + 1;
    ++received_;
    sum_ += word_sum(payload, n);
  }
  std::uint64_t received() const noexcept { return received_; }
  // END_ACK's seven fields (received, gaps, checksum, user_ns, sys_ns, voluntary,
  // involuntary), the CPU figures taken now.
  void ack_fields(std::uint64_t (&fields)[7]) const noexcept;
  // The same as END_ACK's 56-byte payload.
  void write_ack(std::uint8_t* out) const noexcept;

 private:
  // What flipping the low bit of the payload's last byte adds to its word sum (mod 2^64).
  static std::uint64_t flipped_low_bit(const std::uint8_t* p, std::size_t n) noexcept {
    const std::uint64_t bit = std::uint64_t{1} << (8 * ((n - 1) % 8));
    return (p[n - 1] & 1) != 0 ? 0 - bit : bit;
  }

  Fault fault_;
  bool fault_done_ = false;
  std::size_t size_ = 0, head_bytes_ = 0;  // message size, its stamped bytes min(8, S)
  std::uint64_t head_word_ = 0, head_mask_ = 0;
  std::uint64_t received_ = 0, gaps_ = 0, sum_ = 0, next_ = 0;
  CpuFigures start_;
};

}  // namespace ipclab
