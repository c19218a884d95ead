// The 24-byte frame header of PROTOCOL.md section 2: encoding, decoding and the checks each side
// makes. Pure functions on byte buffers, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace ipclab {

inline constexpr std::size_t kHeaderSize = 24;
inline constexpr std::uint32_t kMaxPayload = 134217728;   // MAX_PAYLOAD, 128 MiB
inline constexpr std::uint32_t kUdpMaxPayload = 65483;    // 65507 - 24
// A stream message (11.1) is bare bytes, so a datagram stream carries the whole datagram.
inline constexpr std::uint32_t kUdpMaxMessage = 65507;
inline constexpr std::size_t kEndAckSize = kHeaderSize + 8;  // END_ACK carries a u64
// A one-way END's END_ACK (section 11.2): u64 corrupted requests, u64 requests received.
inline constexpr std::size_t kOneWayAckPayload = 16;
inline constexpr std::size_t kOneWayAckSize = kHeaderSize + kOneWayAckPayload;
// flags NO_REPLY (section 2): on the REQUEST and END of a one-way short (11.2) only.
inline constexpr std::uint16_t kNoReply = 1;
// Load over a message queue (11.5.5): every client shares one request queue, so a REQUEST or END
// carries its connection c's reply address in flags, 0x8000 + c, c < 1024 (--clients' limit).
inline constexpr std::uint16_t kReplyAddress = 0x8000;
inline constexpr std::uint32_t kReplyAddresses = 1024;
// A stream's MARK (section 11.1): u64 message size, u64 count of messages that follow.
inline constexpr std::size_t kMarkPayload = 16;
inline constexpr std::size_t kMarkSize = kHeaderSize + kMarkPayload;
// A stream's END_ACK (section 11.1 step 4): seven u64.
inline constexpr std::size_t kStreamAckPayload = 56;
inline constexpr std::size_t kStreamAckSize = kHeaderSize + kStreamAckPayload;
inline constexpr std::uint8_t kVersion = 1;
inline constexpr std::uint8_t kMagic[4] = {0x49, 0x50, 0x43, 0x4C};  // "IPCL"

enum class FrameKind : std::uint8_t {
  request = 1,
  response = 2,
  end = 3,
  end_ack = 4,
  // 5 was DATA, a framed stream message until contract 4: now rejected as "unexpected kind".
  mark = 6,      // stream (11.1): message size and count of the bare messages that follow
  mark_ack = 7,  // stream: the server's answer to MARK
};

struct Header {
  std::uint8_t magic[4];
  std::uint8_t version;
  std::uint8_t kind;
  std::uint16_t flags;
  std::uint64_t sequence;
  std::uint32_t length;
  std::uint32_t wanted;
};

// Little-endian loads and stores (memcpy compiles to one move on little-endian machines).
inline std::uint16_t load_le16(const std::uint8_t* p) noexcept {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
inline std::uint32_t load_le32(const std::uint8_t* p) noexcept {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
inline std::uint64_t load_le64(const std::uint8_t* p) noexcept {
  return static_cast<std::uint64_t>(load_le32(p)) |
         (static_cast<std::uint64_t>(load_le32(p + 4)) << 32);
}
inline void store_le16(std::uint8_t* p, std::uint16_t v) noexcept {
  p[0] = static_cast<std::uint8_t>(v);
  p[1] = static_cast<std::uint8_t>(v >> 8);
}
inline void store_le32(std::uint8_t* p, std::uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
inline void store_le64(std::uint8_t* p, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// Field offsets inside the header.
inline constexpr std::size_t kOffKind = 5;
inline constexpr std::size_t kOffFlags = 6;
inline constexpr std::size_t kOffSequence = 8;
inline constexpr std::size_t kOffLength = 16;
inline constexpr std::size_t kOffWanted = 20;

// Writes a complete header (magic, version 1, flags 0 unless given) to out[0..24).
void encode_header(std::uint8_t* out, FrameKind kind, std::uint64_t sequence,
                   std::uint32_t length, std::uint32_t wanted, std::uint16_t flags = 0) noexcept;

Header decode_header(const std::uint8_t* in) noexcept;

// The server's checks of section 2, in the document's order (REQUEST, END and MARK are
// accepted; MARK as section 11 says: length 16, wanted 0; flags NO_REPLY on REQUEST and END
// only). Returns nullptr if the header is acceptable, else the reason ("bad magic", ...). Does
// not check udp's datagram size nor a MARK's announced message size (check_mark_payload).
const char* check_request_header(const Header& h) noexcept;
// The same checks for a load server over a message queue (11.5.5): REQUEST and END only, flags
// a reply address (0x8000 ... 0x83FF) and nothing else (0 included: an answer needs an address).
const char* check_queue_request_header(const Header& h) noexcept;

// A MARK's 16-byte payload (11.1): message size and count.
struct MarkFields {
  std::uint64_t message_size;
  std::uint64_t count;
};
inline MarkFields decode_mark(const std::uint8_t* payload) noexcept {
  return {load_le64(payload), load_le64(payload + 8)};
}
inline void encode_mark(std::uint8_t* payload, std::uint64_t message_size,
                        std::uint64_t count) noexcept {
  store_le64(payload, message_size);
  store_le64(payload + 8, count);
}
// "bad stream frame" when the MARK announces messages of 0 bytes or above the server's limit
// (11.1 item 10), else nullptr.
inline const char* check_mark_payload(const MarkFields& m, std::uint64_t limit) noexcept {
  return m.message_size == 0 || m.message_size > limit ? "bad stream frame" : nullptr;
}

// The client's checks of a RESPONSE or END_ACK. Returns nothing if all fields are as expected,
// else "<field>: expected <x>, received <y>" for the first field that differs.
std::optional<std::string> check_reply_header(const Header& h, FrameKind kind,
                                              std::uint64_t sequence, std::uint32_t length,
                                              std::uint32_t wanted);

}  // namespace ipclab
