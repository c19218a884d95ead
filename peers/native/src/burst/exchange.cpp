#include "burst/exchange.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "burst/serving.hpp"
#include "error.hpp"
#include "load/faults.hpp"
#include "patterns.hpp"  // now_ns

namespace ipclab::burst {

namespace {

RequestHandler& handler(const Server& server) {
  thread_local std::optional<RequestHandler> h;
  if (!h) h.emplace(config_of(server));
  return *h;
}

std::vector<std::uint8_t>& request_buffer() {
  thread_local std::vector<std::uint8_t> buf(64 * 1024);
  return buf;
}

ConnError reject(const char* why) {
  print_line(std::string("rejected frame: ") + why);
  return ConnError::protocol;
}

// Reads until buf starts with one whole frame (h, its header, checked before any of its
// payload is made room for). `have` counts the bytes in buf: a greedy read may leave the start
// of the next frame after this one.
ConnError receive_frame(const Server& s, int fd, std::vector<std::uint8_t>& buf,
                        std::size_t& have, Header& h) {
  std::size_t need = kHeaderSize;
  bool checked = false;
  for (;;) {
    if (!checked && have >= kHeaderSize) {
      h = decode_header(buf.data());
      if (const char* why = s.exchange.check(h)) return reject(why);
      need = kHeaderSize + h.length;
      checked = true;
    }
    if (have >= need) return ConnError::none;
    if (have == buf.size()) grow_toward(buf, need);
    const ssize_t r = ::recv(fd, buf.data() + have, buf.size() - have, 0);
    if (r == 0) return closed_after(s, have);
    if (r < 0) {
      if (errno == EINTR) continue;
      return error_of_errno(errno);
    }
    have += static_cast<std::size_t>(r);
  }
}

ConnError send_all(int fd, const std::uint8_t* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      return error_of_errno(errno);
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return ConnError::none;
}

// burst: one REQUEST, its RESPONSE, the payload check.
ConnError serve_one(Server& s, int fd, ConnTimes& t) {
  std::vector<std::uint8_t>& buf = request_buffer();
  std::size_t have = 0;
  Header h{};
  ConnError error = receive_frame(s, fd, buf, have, h);
  if (error != ConnError::none) return error;
  RequestHandler& answer = handler(s);
  error = send_all(fd, answer.response(h.sequence, h.length, h.wanted), kHeaderSize + h.wanted);
  answer.after_send();
  if (error != ConnError::none) return error;
  t.transfer_end = now_ns();
  return answer.request_ok(buf.data() + kHeaderSize, h.length, h.sequence)
             ? ConnError::none
             : ConnError::payload_mismatch;
}

// load: frames until END or the end of stream, each answered as an event loop answers it.
ConnError serve_persistent(Server& s, int fd, ConnTimes&) {
  std::vector<std::uint8_t>& buf = request_buffer();
  RequestHandler& answer = handler(s);
  std::uint8_t ack[kEndAckSize];
  std::uint64_t corrupted = 0;
  std::size_t have = 0;
  for (;;) {
    Header h{};
    ConnError error = receive_frame(s, fd, buf, have, h);
    // none with nothing read: the client closed between frames (closed_after), no frame came.
    if (error != ConnError::none || have == 0) return error;
    const Reply r = answer_frame(s, answer, h, ack, corrupted);
    error = send_all(fd, r.data, r.size);
    if (r.response) answer.after_send();
    if (error != ConnError::none) return error;
    if (!after_reply(s, answer, h, buf.data() + kHeaderSize, corrupted, error)) return error;
    const std::size_t total = kHeaderSize + h.length;
    std::memmove(buf.data(), buf.data() + total, have - total);
    have -= total;
  }
}

}  // namespace

const Exchange kBurstExchange{check_burst_header, serve_one, false};
const Exchange kLoadExchange{check_load_header, serve_persistent, true};

const char* check_burst_header(const Header& h) noexcept {
  if (const char* why = check_request_header(h)) return why;
  if (h.kind != static_cast<std::uint8_t>(FrameKind::request)) return "unexpected kind";
  return nullptr;
}

const char* check_load_header(const Header& h) noexcept {
  // Section 2's checks as a server that takes no MARK (check 3) and no NO_REPLY flags (check 4)
  // makes them: such a header is checked as one with an unknown kind or flags, so that the
  // reason is the one section 2's order gives.
  Header strict = h;
  if (strict.kind == static_cast<std::uint8_t>(FrameKind::mark)) strict.kind = 0;
  if (strict.flags == kNoReply) strict.flags = 0xFFFF;
  return check_request_header(strict);
}

ServerConfig config_of(const Server& s) noexcept {
  const bool flip = s.exchange.persistent && s.options.fault == Fault::flip_response_byte;
  return ServerConfig{s.options.seed, flip, StreamTally::Fault::none};
}

Reply answer_frame(Server& s, RequestHandler& answer, const Header& h, std::uint8_t* ack,
                   std::uint64_t corrupted) {
  if (h.kind == static_cast<std::uint8_t>(FrameKind::end)) {
    RequestHandler::end_ack(ack, h.sequence, corrupted);
    return {ack, kEndAckSize, false};
  }
  if (s.gate != nullptr) s.gate->hold(now_ns());
  return {answer.response(h.sequence, h.length, h.wanted), kHeaderSize + h.wanted, true};
}

bool after_reply(const Server& s, RequestHandler& answer, const Header& h,
                 const std::uint8_t* payload, std::uint64_t& corrupted, ConnError& error) {
  error = ConnError::none;
  if (h.kind == static_cast<std::uint8_t>(FrameKind::end)) return false;  // END_ACK sent: close
  const bool ok = answer.request_ok(payload, h.length, h.sequence);
  if (s.exchange.persistent) {
    if (!ok) ++corrupted;  // reported in END_ACK; the connection goes on
    return true;
  }
  if (!ok) error = ConnError::payload_mismatch;
  return false;
}

ConnError closed_after(const Server& s, std::size_t got) {
  if (!s.exchange.persistent) return ConnError::eof;
  if (got == 0) return ConnError::none;
  return reject(got < kHeaderSize ? "truncated header" : "truncated payload");
}

}  // namespace ipclab::burst
