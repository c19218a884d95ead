// Deterministic payloads of PROTOCOL.md section 3: splitmix64 base, per-frame sequence stamp,
// comparison. The base depends only on (seed, stream, n) and is computed outside timed regions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ipclab {

enum class PayloadStream : std::uint64_t { request = 1, response = 2 };

inline constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;
inline constexpr std::size_t kStampBytes = 8;

// Writes the first n bytes of the base for (seed, stream) to out.
void fill_base(std::uint64_t seed, PayloadStream stream, std::uint8_t* out, std::size_t n) noexcept;

std::vector<std::uint8_t> make_base(std::uint64_t seed, PayloadStream stream, std::size_t n);

// XORs the first min(8, n) bytes of p with the little-endian bytes of sequence.
inline void stamp_in_place(std::uint8_t* p, std::size_t n, std::uint64_t sequence) noexcept {
  const std::size_t k = n < kStampBytes ? n : kStampBytes;
  for (std::size_t j = 0; j < k; ++j) p[j] ^= static_cast<std::uint8_t>(sequence >> (8 * j));
}

// Writes the stamped first min(8, n) bytes to dst from the unstamped base bytes in base_head.
inline void stamp_from(std::uint8_t* dst, const std::uint8_t* base_head, std::size_t n,
                       std::uint64_t sequence) noexcept {
  const std::size_t k = n < kStampBytes ? n : kStampBytes;
  for (std::size_t j = 0; j < k; ++j)
    dst[j] = base_head[j] ^ static_cast<std::uint8_t>(sequence >> (8 * j));
}

// payload(seed, stream, sequence, n) in full (for tests and tools; peers stamp a cached base).
std::vector<std::uint8_t> make_payload(std::uint64_t seed, PayloadStream stream,
                                       std::uint64_t sequence, std::size_t n);

inline constexpr std::size_t kNoDifference = static_cast<std::size_t>(-1);

// Compares got[0..n) with base[0..n) stamped with sequence; returns the first differing offset
// or kNoDifference.
std::size_t first_difference(const std::uint8_t* got, const std::uint8_t* base, std::size_t n,
                             std::uint64_t sequence) noexcept;

// Payloads as text (10.1 callString): byte b travels as kAlphabet[b mod 62] (10.2's alphabet).
inline constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
inline char text_char(std::uint8_t b) noexcept { return kAlphabet[b % 62]; }
// Writes the text of n payload bytes to out.
void to_text(const std::uint8_t* bytes, std::size_t n, char* out) noexcept;
// first_difference for text: got[0..n) against the text of base[0..n) stamped with sequence.
std::size_t first_text_difference(const char* got, const std::uint8_t* base, std::size_t n,
                                  std::uint64_t sequence) noexcept;

std::uint64_t fnv1a64(const std::uint8_t* p, std::size_t n) noexcept;

// The base of one stream for the most recently asked size, regenerated when the size changes.
class BaseCache {
 public:
  BaseCache(std::uint64_t seed, PayloadStream stream) : seed_(seed), stream_(stream) {}
  const std::uint8_t* get(std::size_t n);

 private:
  std::uint64_t seed_;
  PayloadStream stream_;
  std::vector<std::uint8_t> bytes_;
  bool valid_ = false;
};

}  // namespace ipclab
