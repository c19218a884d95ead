#include "tally.hpp"

#include <sys/resource.h>

#include "frame.hpp"
#include "payload.hpp"

namespace ipclab {

std::uint64_t expected_checksum(std::uint64_t seed, std::size_t size, std::uint64_t first,
                                std::uint64_t count) {
  if (size == 0) return 0;
  const std::vector<std::uint8_t> base = make_base(seed, PayloadStream::request, size);
  const std::size_t head = size < 8 ? size : 8;
  std::uint64_t word = 0;
  std::memcpy(&word, base.data(), head);
  const std::uint64_t mask = head == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * head)) - 1;
  const std::uint64_t rest = word_sum(base.data(), size) - word;
  std::uint64_t sum = rest * count;
  for (std::uint64_t s = first; s != first + count; ++s) sum += word ^ (s & mask);
  return sum;
}

CpuFigures CpuFigures::now() noexcept {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  const auto ns = [](const timeval& t) {
    return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000 +
           static_cast<std::uint64_t>(t.tv_usec) * 1000;
  };
  return {ns(u.ru_utime), ns(u.ru_stime), static_cast<std::uint64_t>(u.ru_nvcsw),
          static_cast<std::uint64_t>(u.ru_nivcsw)};
}

CpuFigures CpuFigures::since(const CpuFigures& s) const noexcept {
  const auto diff = [](std::uint64_t end, std::uint64_t begin) {
    return end > begin ? end - begin : 0;
  };
  return {diff(user_ns, s.user_ns), diff(sys_ns, s.sys_ns), diff(voluntary, s.voluntary),
          diff(involuntary, s.involuntary)};
}

void StreamTally::restart(std::uint64_t mark_sequence) noexcept {
  received_ = gaps_ = sum_ = 0;
  next_ = mark_sequence + 1;
  fault_done_ = false;
  start_ = CpuFigures::now();
}

void StreamTally::restart(std::uint64_t mark_sequence, const std::uint8_t* base_head,
                          std::size_t size) noexcept {
  restart(mark_sequence);
  size_ = size;
  head_bytes_ = size < 8 ? size : 8;
  head_word_ = 0;
  std::memcpy(&head_word_, base_head, head_bytes_);
  head_mask_ = head_bytes_ == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * head_bytes_)) - 1;
}

void StreamTally::ack_fields(std::uint64_t (&fields)[7]) const noexcept {
  const CpuFigures cpu = CpuFigures::now().since(start_);
  const std::uint64_t f[7] = {received_,  gaps_,         sum_,           cpu.user_ns,
                              cpu.sys_ns, cpu.voluntary, cpu.involuntary};
  std::memcpy(fields, f, sizeof f);
}

void StreamTally::write_ack(std::uint8_t* out) const noexcept {
  std::uint64_t fields[7];
  ack_fields(fields);
  for (int i = 0; i < 7; ++i) store_le64(out + 8 * i, fields[i]);
}

}  // namespace ipclab
