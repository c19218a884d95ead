#include "payload.hpp"

#include <cstring>

namespace ipclab {

void fill_base(std::uint64_t seed, PayloadStream stream, std::uint8_t* out,
               std::size_t n) noexcept {
  std::uint64_t state = seed ^ (static_cast<std::uint64_t>(stream) * kGolden);
  std::size_t i = 0;
  while (i < n) {
    state += kGolden;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    for (int b = 0; b < 8 && i < n; ++b, ++i) out[i] = static_cast<std::uint8_t>(z >> (8 * b));
  }
}

std::vector<std::uint8_t> make_base(std::uint64_t seed, PayloadStream stream, std::size_t n) {
  std::vector<std::uint8_t> v(n);
  fill_base(seed, stream, v.data(), n);
  return v;
}

std::vector<std::uint8_t> make_payload(std::uint64_t seed, PayloadStream stream,
                                       std::uint64_t sequence, std::size_t n) {
  std::vector<std::uint8_t> v = make_base(seed, stream, n);
  stamp_in_place(v.data(), n, sequence);
  return v;
}

std::size_t first_difference(const std::uint8_t* got, const std::uint8_t* base, std::size_t n,
                             std::uint64_t sequence) noexcept {
  const std::size_t k = n < kStampBytes ? n : kStampBytes;
  for (std::size_t j = 0; j < k; ++j)
    if (got[j] != (base[j] ^ static_cast<std::uint8_t>(sequence >> (8 * j)))) return j;
  if (n > k && std::memcmp(got + k, base + k, n - k) != 0) {
    for (std::size_t j = k; j < n; ++j)
      if (got[j] != base[j]) return j;
  }
  return kNoDifference;
}

void to_text(const std::uint8_t* bytes, std::size_t n, char* out) noexcept {
  for (std::size_t j = 0; j < n; ++j) out[j] = text_char(bytes[j]);
}

std::size_t first_text_difference(const char* got, const std::uint8_t* base, std::size_t n,
                                  std::uint64_t sequence) noexcept {
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint8_t b =
        j < kStampBytes ? base[j] ^ static_cast<std::uint8_t>(sequence >> (8 * j)) : base[j];
    if (got[j] != text_char(b)) return j;
  }
  return kNoDifference;
}

std::uint64_t fnv1a64(const std::uint8_t* p, std::size_t n) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

const std::uint8_t* BaseCache::get(std::size_t n) {
  if (!valid_ || bytes_.size() != n) {
    bytes_.assign(n, 0);
    fill_base(seed_, stream_, bytes_.data(), n);
    valid_ = true;
  }
  return bytes_.data();
}

}  // namespace ipclab
