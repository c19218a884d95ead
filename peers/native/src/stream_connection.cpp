// One stream connection of a server (tcp, uds, pipe, fifo): frames, and after a MARK the bare
// messages it announces (PROTOCOL.md sections 2 and 11.1), read greedily into one buffer, or the
// messages with reads of at most --read-size bytes.
#include <cstring>

#include "buffer_growth.hpp"
#include "error.hpp"
#include "server.hpp"

namespace ipclab {

namespace {

constexpr std::size_t kInitialBuffer = 64 * 1024;
// take_frame's and take_messages' answer when the client closed between frames or messages.
constexpr const char* kClosed = "";

}  // namespace

void ensure_capacity(std::unique_ptr<std::uint8_t[]>& buf, std::size_t& capacity,
                     std::size_t need, std::size_t keep) {
  if (capacity >= need) return;
  auto bigger = std::make_unique_for_overwrite<std::uint8_t[]>(need);
  std::memcpy(bigger.get(), buf.get(), keep);
  buf = std::move(bigger);
  capacity = need;
}

StreamConnectionHandler::StreamConnectionHandler(const ServerConfig& config,
                                                 std::size_t read_size)
    : responder_(config),
      read_size_(read_size),
      buf_(std::make_unique_for_overwrite<std::uint8_t[]>(kInitialBuffer)),
      capacity_(kInitialBuffer) {}

void StreamConnectionHandler::compact() noexcept {
  if (start_ == 0) return;
  std::memmove(buf_.get(), buf_.get() + start_, end_ - start_);
  end_ -= start_;
  start_ = 0;
}

// Called only when the buffer is full (end_ == capacity_) with start_ == 0, holding fewer than
// `need` bytes of one frame or message: it doubles (grown_size), so memory follows the bytes
// that arrive, never a length a header or MARK merely claims.
void StreamConnectionHandler::grow(std::size_t need) {
  ensure_capacity(buf_, capacity_, grown_size(capacity_, need), end_);
}

bool StreamConnectionHandler::fill(Stream& stream, std::size_t most) {
  const std::size_t room = capacity_ - end_;
  const std::size_t n = stream.read_some(buf_.get() + end_, most < room ? most : room);
  end_ += n;
  return n != 0;
}

// Greedy (read_size_ 0): all the room. Else min(read_size_, the bytes still due of the announced
// messages, of which end_ - start_ (less than one message) are here): as a hand-written server's
// recv(fd, buf, N, 0), and never into the control frame that follows the messages.
std::size_t StreamConnectionHandler::message_read() const noexcept {
  if (read_size_ == 0) return SIZE_MAX;
  const std::uint64_t pending = responder_.pending();
  const std::size_t size = responder_.message_size(), here = end_ - start_;
  // pending * size may overflow; when it exceeds read_size_ + here, read_size_ is the answer.
  if (pending > (read_size_ + here) / size) return read_size_;
  return static_cast<std::size_t>(pending * size - here);
}

ConnectionOutcome StreamConnectionHandler::serve(Stream& stream) {
  ConnectionOutcome out;
  start_ = end_ = 0;
  try {
    for (;;) {
      const char* why = responder_.pending() != 0 ? take_messages(stream)
                                                  : take_frame(stream, out);
      if (why == nullptr) continue;
      responder_.stream_over();
      if (why != kClosed) {  // the corrupted count runs across connections only until then
        corrupted_ = 0;
        out.end = ConnectionOutcome::End::rejected;
        out.detail = why;
      }
      return out;
    }
  } catch (const PeerError& e) {
    out.end = ConnectionOutcome::End::io_error;
    out.detail = e.what();
    responder_.stream_over();
    return out;
  }
}

// One frame, read completely (its payload only once the header passed the checks), answered.
// Returns nullptr, kClosed at a clean close between frames, or the reason to reject it.
const char* StreamConnectionHandler::take_frame(Stream& stream, ConnectionOutcome& out) {
  // Header: read as much as the kernel has (normally the whole frame in one call).
  while (end_ - start_ < kHeaderSize) {
    compact();
    if (!fill(stream)) return end_ != start_ ? "truncated header" : kClosed;
  }
  const Header h = decode_header(buf_.get() + start_);
  if (const char* reason = check_request_header(h)) return reason;
  // The header is valid, so now room may be made for the payload, but only as it arrives. A
  // frame that fits the buffer (the hot path) never reaches its end: no copy, no allocation.
  const std::size_t total = kHeaderSize + h.length;
  if (capacity_ - start_ < total) compact();
  while (end_ - start_ < total) {
    if (end_ == capacity_) grow(total);  // start_ is 0 here: compacted above
    if (!fill(stream)) return "truncated payload";
  }

  const std::uint8_t* payload = buf_.get() + start_ + kHeaderSize;
  if (const char* reason = responder_.check(h, payload)) return reason;
  const Responder::Answer a = responder_.answer(h, payload, corrupted_);
  if (a.size != 0) stream.write_all(a.data, a.size);
  if (responder_.after_send(h, payload)) ++corrupted_;
  if (h.kind == static_cast<std::uint8_t>(FrameKind::request)) ++out.requests;
  start_ += total;
  if (start_ == end_) start_ = end_ = 0;
  return nullptr;
}

// The messages the last MARK announced: every whole message in the buffer is handed over, then
// the partial one (fewer than S bytes) moves to the buffer's start and one read appends what
// the kernel has. Returns nullptr when all came, kClosed at a close between messages (the
// client went away), "truncated payload" at a close inside one.
const char* StreamConnectionHandler::take_messages(Stream& stream) {
  const std::size_t size = responder_.message_size();
  for (;;) {
    while (end_ - start_ >= size) {
      responder_.message(buf_.get() + start_);
      start_ += size;
      if (responder_.pending() == 0) {
        if (start_ == end_) start_ = end_ = 0;
        return nullptr;
      }
    }
    compact();
    // The MARK was valid: room may be made for one message, but only as its bytes arrive.
    if (end_ == capacity_) grow(size);
    if (!fill(stream, message_read())) return end_ != start_ ? "truncated payload" : kClosed;
  }
}

}  // namespace ipclab
