#include "frame.hpp"

namespace ipclab {

void encode_header(std::uint8_t* out, FrameKind kind, std::uint64_t sequence,
                   std::uint32_t length, std::uint32_t wanted, std::uint16_t flags) noexcept {
  std::memcpy(out, kMagic, 4);
  out[4] = kVersion;
  out[kOffKind] = static_cast<std::uint8_t>(kind);
  store_le16(out + kOffFlags, flags);
  store_le64(out + kOffSequence, sequence);
  store_le32(out + kOffLength, length);
  store_le32(out + kOffWanted, wanted);
}

Header decode_header(const std::uint8_t* in) noexcept {
  Header h{};
  std::memcpy(h.magic, in, 4);
  h.version = in[4];
  h.kind = in[kOffKind];
  h.flags = load_le16(in + kOffFlags);
  h.sequence = load_le64(in + kOffSequence);
  h.length = load_le32(in + kOffLength);
  h.wanted = load_le32(in + kOffWanted);
  return h;
}

const char* check_request_header(const Header& h) noexcept {
  if (std::memcmp(h.magic, kMagic, 4) != 0) return "bad magic";
  if (h.version != kVersion) return "bad version";
  const auto kind = static_cast<FrameKind>(h.kind);
  if (kind != FrameKind::request && kind != FrameKind::end && kind != FrameKind::mark)
    return "unexpected kind";
  if (h.flags != 0 &&
      (h.flags != kNoReply || (kind != FrameKind::request && kind != FrameKind::end)))
    return "bad flags";
  if (h.length > kMaxPayload || h.wanted > kMaxPayload) return "length too large";
  if (kind == FrameKind::end && h.length != 0) return "bad end frame";
  if (kind == FrameKind::mark && (h.wanted != 0 || h.length != kMarkPayload))
    return "bad stream frame";
  return nullptr;
}

const char* check_queue_request_header(const Header& h) noexcept {
  // Checked as section 2's order gives the reason: a MARK as an unknown kind (check 3), a reply
  // address as the flags 0 every server takes and any other flags as flags none takes (check 4).
  Header strict = h;
  if (strict.kind == static_cast<std::uint8_t>(FrameKind::mark)) strict.kind = 0;
  const bool address = h.flags >= kReplyAddress && h.flags < kReplyAddress + kReplyAddresses;
  strict.flags = address ? 0 : 0xFFFF;
  return check_request_header(strict);
}

namespace {

std::string hex_bytes(const std::uint8_t* p, std::size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string s = "0x";
  for (std::size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

std::string field_mismatch(const char* field, const std::string& expected,
                     const std::string& received) {
  return std::string(field) + ": expected " + expected + ", received " + received;
}

}  // namespace

std::optional<std::string> check_reply_header(const Header& h, FrameKind kind,
                                              std::uint64_t sequence, std::uint32_t length,
                                              std::uint32_t wanted) {
  using std::to_string;
  if (std::memcmp(h.magic, kMagic, 4) != 0)
    return field_mismatch("magic", hex_bytes(kMagic, 4), hex_bytes(h.magic, 4));
  if (h.version != kVersion) return field_mismatch("version", "1", to_string(h.version));
  if (h.kind != static_cast<std::uint8_t>(kind))
    return field_mismatch("kind", to_string(static_cast<int>(kind)), to_string(h.kind));
  if (h.flags != 0) return field_mismatch("flags", "0", to_string(h.flags));
  if (h.sequence != sequence) return field_mismatch("sequence", to_string(sequence), to_string(h.sequence));
  if (h.length != length) return field_mismatch("length", to_string(length), to_string(h.length));
  if (h.wanted != wanted) return field_mismatch("wanted", to_string(wanted), to_string(h.wanted));
  return std::nullopt;
}

}  // namespace ipclab
