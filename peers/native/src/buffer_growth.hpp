// How a receive buffer grows: only as bytes actually arrive, never to the length a header (or
// a MARK) merely claims. A header claiming 128 MiB and then silence must cost (almost) nothing,
// not even address space; a hundred such connections a few MiB. Shared by the burst/load
// readers (std::vector) and the rr servers' buffers (unique_ptr + capacity, server.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ipclab {

// The next size of a buffer of `size` bytes that is full of received bytes: twice as much
// (64 KiB at least, so a usual request takes one more read), at most `need`.
constexpr std::size_t grown_size(std::size_t size, std::size_t need) noexcept {
  constexpr std::size_t kChunk = 64 * 1024;
  const std::size_t twice = 2 * size < kChunk ? kChunk : 2 * size;
  return twice < need ? twice : need;
}

// Room for more of a request whose vector is full of received bytes (grown_size).
inline void grow_toward(std::vector<std::uint8_t>& buf, std::size_t need) {
  buf.resize(grown_size(buf.size(), need));
}

}  // namespace ipclab
