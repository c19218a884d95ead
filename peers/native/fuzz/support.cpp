#include "support.hpp"

#include "frame.hpp"

namespace ipclab::fuzz {

void tame_wanted(std::vector<std::uint8_t>& bytes, std::uint32_t limit) noexcept {
  for (std::size_t at = 0; at + kHeaderSize <= bytes.size(); ++at) {
    std::uint8_t* h = bytes.data() + at;
    if (std::memcmp(h, kMagic, 4) != 0 || h[4] != kVersion) continue;
    const std::uint32_t wanted = load_le32(h + kOffWanted);
    if (wanted <= kMaxPayload) store_le32(h + kOffWanted, wanted % limit);
  }
}

std::vector<std::string> split_at_nul(const std::string& text) {
  std::vector<std::string> pieces;
  std::size_t from = 0;
  for (;;) {
    const std::size_t nul = text.find('\0', from);
    pieces.push_back(text.substr(from, nul - from));
    if (nul == std::string::npos) return pieces;
    from = nul + 1;
  }
}

}  // namespace ipclab::fuzz
