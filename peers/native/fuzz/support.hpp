// What the libFuzzer targets of this directory share: taking a few leading bytes of the input as
// the target's settings, and keeping the answers a fuzzed REQUEST asks for small. Each target is
// `extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t)`; built with -fsanitize=fuzzer
// by `scripts/fuzz` (IPCLAB_FUZZ), and replayed over its committed corpus by the normal build's
// ctest (tests/fuzz_replay.cpp), so the same source runs under both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ipclab::fuzz {

// The input, read from its front: settings first, the bytes under test last.
class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}
  // The next byte, 0 once the input is used up (so every input is a valid one).
  std::uint8_t byte() noexcept {
    if (size_ == 0) return 0;
    --size_;
    return *data_++;
  }
  std::vector<std::uint8_t> rest() const { return {data_, data_ + size_}; }
  std::string rest_text() const { return {reinterpret_cast<const char*>(data_), size_}; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
};

// A REQUEST's RESPONSE carries `wanted` bytes the server builds from splitmix64: a fuzzed header
// may ask up to 128 MiB (MAX_PAYLOAD), 0.1 s of work that reaches no new code and would keep
// the fuzzer to a few executions per second. So every header-looking place (magic "IPCL",
// version 1) that asks for a valid size gets wanted mod `limit`; sizes above MAX_PAYLOAD stay,
// to be rejected as the contract says. Message bytes that look like a header change too: they
// are fuzzed bytes all the same.
void tame_wanted(std::vector<std::uint8_t>& bytes, std::uint32_t limit) noexcept;
// The targets' limit: answers of up to 4 KiB (every size builds its answer anew, so larger ones
// only cost time), a few hundred of which fit a socket's buffer.
inline constexpr std::uint32_t kWantedLimit = 4096 + 1;

// A command line from the input: the arguments are the pieces between NUL bytes.
std::vector<std::string> split_at_nul(const std::string& text);

}  // namespace ipclab::fuzz
