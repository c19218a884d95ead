// The servers over message channels (section 4.1: sysv-mq, posix-mq, sysv-shm, shm) and files
// (section 4.2: file, file-poll): a frame or stream message arrives in pieces (channel messages)
// or as one file, and is gathered into a ChannelBuffer that grows only as its bytes arrive.
#include <memory>

#include "buffer_growth.hpp"
#include "error.hpp"
#include "frame.hpp"
#include "result.hpp"
#include "server.hpp"
#include "server_common.hpp"

namespace ipclab {

namespace {

// A message channel's buffer: room for what came of the frame or stream message and one channel
// message more (receive_growing). file: the file's bytes.
struct ChannelBuffer {
  std::unique_ptr<std::uint8_t[]> bytes;
  std::size_t capacity;
};

// b holds `got` bytes; appends whole channel messages until it holds at least `want` and returns
// the new count. A message arrives whole (one msgrcv, mq_receive or slot copy, at most M bytes),
// but a frame or stream message is many of them: the buffer grows (grown_size) only as they
// arrive, never straight to the length a header or MARK claims, and always has room for one
// more message of M bytes.
std::size_t receive_growing(MessageStream& messages, ChannelBuffer& b, std::size_t got,
                            std::size_t want) {
  const std::size_t m = messages.max_message();
  while (got < want) {
    if (b.capacity - got < m)
      ensure_capacity(b.bytes, b.capacity, grown_size(b.capacity, want + m), got);
    const std::size_t fits = b.capacity - m + 1;  // receive_until's room: fits + M - 1 bytes
    got = messages.receive_until(b.bytes.get(), got, want < fits ? want : fits);
  }
  return got;
}

// One frame off a message channel, reassembled and answered: nullptr, or why it is rejected.
const char* take_channel_frame(MessageStream& messages, Responder& responder, ChannelBuffer& b,
                               std::uint64_t& corrupted) {
  std::size_t got = messages.receive_until(b.bytes.get(), 0, kHeaderSize);
  const Header h = decode_header(b.bytes.get());
  if (const char* reason = check_request_header(h)) return reason;
  const std::size_t total = kHeaderSize + h.length;
  got = receive_growing(messages, b, got, total);  // the header is valid: room may be made
  if (got > total) return "length mismatch";
  const std::uint8_t* payload = b.bytes.get() + kHeaderSize;
  if (const char* reason = responder.check(h, payload)) return reason;
  const Responder::Answer a = responder.answer(h, payload, corrupted);
  if (a.size != 0) messages.send_frame(a.data, a.size);
  if (responder.after_send(h, payload)) ++corrupted;
  return nullptr;
}

// One stream message a MARK announced (11.1): ceil(S / M) channel messages, the last shorter.
const char* take_channel_message(MessageStream& messages, Responder& responder,
                                 ChannelBuffer& b) {
  const std::size_t size = responder.message_size();
  if (size <= messages.max_message()) {  // one channel message: summed where it arrived
    std::size_t n = 0;
    const std::uint8_t* p = messages.receive_one(b.bytes.get(), n);
    if (n != size) return "length mismatch";
    responder.message(p);
    return nullptr;
  }
  // The MARK was valid: room may be made.
  if (receive_growing(messages, b, 0, size) != size) return "length mismatch";
  responder.message(b.bytes.get());
  return nullptr;
}

}  // namespace

// Message channels (section 4.1): frames reassembled from direction-1 messages; one client at a
// time on the same objects. After a rejected frame the next message is taken as the start of the
// next frame (frames start at message boundaries; nothing is dropped, so a following client's
// frames are never lost).
void serve_messages(MessageServer server, const ServeOptions& o) {
  announce_ready(server.endpoint, o.mechanism_name);
  Responder responder(config_of(o));
  MessageStream messages(*server.channel);
  ChannelBuffer b;
  b.capacity = 64 * 1024 + messages.max_message();  // a header and any one more message
  b.bytes = std::make_unique_for_overwrite<std::uint8_t[]>(b.capacity);
  std::uint64_t corrupted = 0;
  for (;;) {
    const char* reason = nullptr;
    try {
      reason = responder.pending() != 0 ? take_channel_message(messages, responder, b)
                                        : take_channel_frame(messages, responder, b, corrupted);
      if (reason == nullptr) continue;
    } catch (const PeerError& e) {
      if (e.kind() != ErrorKind::protocol) throw;
      reason = nullptr;
      report_rejected(e.what());
    }
    if (reason != nullptr) report_rejected(reason);
    corrupted = 0;
    responder.stream_over();
  }
}

namespace {

// One stream message a MARK announced, as one file of S bytes (11.1): nullptr or why not.
const char* take_file_message(FileChannel& files, std::size_t size, Responder& responder,
                              ChannelBuffer& b) {
  if (size != responder.message_size()) return "length mismatch";
  ensure_capacity(b.bytes, b.capacity, size, 0);  // the MARK was valid: room may be made
  const std::size_t got = files.read(b.bytes.get(), size);
  if (got != size) return "truncated payload";  // the file shrank under us
  responder.message(b.bytes.get());
  return nullptr;
}

// One frame as one file (4.2), answered: nullptr or why it is rejected.
const char* take_file_frame(FileChannel& files, std::size_t size, Responder& responder,
                            ChannelBuffer& b, std::uint64_t& corrupted) {
  // Read greedily what fits the buffer; the header decides whether to read the rest.
  std::size_t got = files.read(b.bytes.get(), size < b.capacity ? size : b.capacity);
  if (got < kHeaderSize) return "truncated header";
  const Header h = decode_header(b.bytes.get());
  if (const char* reason = check_request_header(h)) return reason;
  if (size != kHeaderSize + h.length) return "length mismatch";
  if (got < size) {
    ensure_capacity(b.bytes, b.capacity, size, got);
    got += files.read(b.bytes.get() + got, size - got);
  }
  if (got != size) return "truncated payload";  // the file shrank under us
  const std::uint8_t* payload = b.bytes.get() + kHeaderSize;
  if (const char* reason = responder.check(h, payload)) return reason;
  files.done();  // the answer's file may be written only once this one is gone
  const Responder::Answer a = responder.answer(h, payload, corrupted);
  if (a.size != 0) files.send(a.data, a.size);
  if (responder.after_send(h, payload)) ++corrupted;
  return nullptr;
}

}  // namespace

// file, file-poll (section 4.2): one file per frame or stream message; one client at a time.
void serve_files(const DirEndpoint& dir, bool poll, const ServeOptions& o) {
  FileChannel::Options fo;
  fo.directory = dir.path;
  fo.server = true;
  fo.poll = poll;
  fo.poll_interval_us = o.poll_interval_us;
  FileChannel files(fo);
  announce_ready(dir.path, o.mechanism_name);
  Responder responder(config_of(o));
  ChannelBuffer b;
  b.capacity = 64 * 1024;
  b.bytes = std::make_unique_for_overwrite<std::uint8_t[]>(b.capacity);
  std::uint64_t corrupted = 0;
  for (;;) {
    const std::size_t size = files.next();
    const char* reason = responder.pending() != 0
                             ? take_file_message(files, size, responder, b)
                             : take_file_frame(files, size, responder, b, corrupted);
    files.done();
    if (reason == nullptr) continue;
    report_rejected(reason);
    corrupted = 0;
    responder.stream_over();
  }
}

}  // namespace ipclab
