#include "load/client.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "error.hpp"
#include "frame.hpp"
#include "load/report.hpp"
#include "patterns.hpp"  // now_ns
#include "payload.hpp"

namespace ipclab::load {

namespace {

// Closer than this to the next intended start the loop polls instead of sleeping: a sleep's
// wake-up comes tens of microseconds late, which would make every request late.
constexpr std::int64_t kSpinNs = 30'000;
constexpr std::int64_t kCheckNs = 10'000'000;  // how often answers are checked for timeouts
constexpr int kEvents = 64;

ConnError error_of(int err) noexcept {
  return err == ECONNRESET || err == EPIPE ? ConnError::reset : ConnError::io;
}

// One persistent connection and the frame it has out (a REQUEST or its END).
struct Conn {
  int fd = -1;
  std::uint64_t next = 0;     // its next request not yet answered; past the schedule: END's turn
  std::uint64_t end_seq = 0;  // END's sequence: the number after its last request
  bool busy = false;          // a frame is out, its whole answer has not come
  bool ending = false;        // that frame is END
  bool done = false;          // closed: END_ACK checked, or dead
  ConnError pending = ConnError::none;  // the server closed or sent unasked bytes while idle
  std::int64_t deadline = 0;  // busy: when the answer times out
  std::uint8_t prefix[kHeaderSize + kStampBytes] = {};  // header and stamped first bytes
  std::size_t prefix_size = 0, out_total = 0, out_sent = 0;
  bool writing = false;       // waiting for room to send the rest (EPOLLOUT)
  std::vector<std::uint8_t> reply;
  std::size_t want = 0, got = 0;
};

class Client {
 public:
  Client(const DriveOptions& o, Run& run)
      : o_(o), run_(run), conns_(o.clients),
        base_(make_base(o.seed, PayloadStream::request, o.request_size)),
        expected_(make_base(o.seed, PayloadStream::response, o.response_size)) {
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_ < 0) throw_io("epoll_create1");
    stamped_ = o.request_size < kStampBytes ? o.request_size : kStampBytes;
    const std::size_t reply = kHeaderSize + o.response_size;
    for (Conn& c : conns_) c.reply.resize(reply > kEndAckSize ? reply : kEndAckSize);
  }
  ~Client() {
    for (Conn& c : conns_)
      if (c.fd >= 0) ::close(c.fd);
    ::close(epoll_);
  }

  void connect_all(const detail::ResolvedAddress& to);
  void run();

  ErrorKind error_kind = ErrorKind::protocol;
  std::string error;  // the first answer that failed validation, or END's failure

 private:
  void release_due(std::int64_t now);
  void wait(std::int64_t until);
  void send_request(Conn& c, std::uint64_t k);
  void send_end(Conn& c);
  void push(Conn& c);
  void on_readable(Conn& c);
  void on_idle_bytes(Conn& c);
  void answered(Conn& c, std::int64_t received);
  ConnError validate(const Conn& c, std::uint64_t k);
  void check_end_ack(Conn& c);
  void fail(Conn& c, ConnError error);
  void close_conn(Conn& c, std::uint64_t not_sent_from);
  void check_deadlines(std::int64_t now);
  void note(ErrorKind kind, const std::string& text) {
    if (error.empty()) error_kind = kind, error = text;
  }
  void set_busy(Conn& c, bool busy) noexcept {
    if (busy != c.busy) busy ? ++busy_ : --busy_;
    c.busy = busy;
  }
  void watch(Conn& c, std::uint32_t events, int op) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u32 = static_cast<std::uint32_t>(&c - conns_.data());
    if (::epoll_ctl(epoll_, op, c.fd, &ev) != 0) throw_io("epoll_ctl");
  }
  std::uint64_t total() const noexcept { return run_.offsets.size(); }

  const DriveOptions& o_;
  Run& run_;
  std::vector<Conn> conns_;
  const std::vector<std::uint8_t> base_;      // the request payload's base
  const std::vector<std::uint8_t> expected_;  // the response payload's base
  std::size_t stamped_ = 0;                   // min(8, request size)
  int epoll_ = -1;
  std::int64_t t0_ = 0;
  std::uint64_t cursor_ = 0;  // the next request of the schedule whose start has not come
  std::size_t open_ = 0;      // connections not done
  std::size_t busy_ = 0;      // connections with a frame out
};

void Client::connect_all(const detail::ResolvedAddress& to) {
  const timeval tv{static_cast<time_t>(o_.io_timeout_ns / 1'000'000'000),
                   static_cast<suseconds_t>(o_.io_timeout_ns % 1'000'000'000 / 1000)};
  const std::uint64_t c_count = conns_.size();
  for (std::uint64_t i = 0; i < c_count; ++i) {
    Conn& c = conns_[i];
    c.fd = ::socket(to.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c.fd < 0) throw_io("socket");
    ::setsockopt(c.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);  // the connect's limit
    if (::connect(c.fd, reinterpret_cast<const sockaddr*>(&to.addr), to.length) != 0)
      throw_io("connect (connection " + std::to_string(i) + ")");
    const int on = 1;
    if (o_.nodelay && to.family != AF_UNIX)
      ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    if (::fcntl(c.fd, F_SETFL, ::fcntl(c.fd, F_GETFL) | O_NONBLOCK) != 0) throw_io("fcntl");
    watch(c, EPOLLIN, EPOLL_CTL_ADD);
    c.next = i;
    // The number after its last request (i + C·m, the largest below the schedule's end).
    c.end_seq = i < total() ? i + (total() - 1 - i) / c_count * c_count + 1 : 0;
  }
  open_ = conns_.size();
}

// T0 (with --release-at, once the wall clock reads it), then until every connection has had its
// END_ACK or died.
void Client::run() {
  ::prctl(PR_SET_TIMERSLACK, 1UL);  // sleeps end when asked, not up to 50 µs later
  t0_ = read_t0(o_, run_);
  for (Conn& c : conns_)
    if (c.next >= total()) send_end(c);  // a connection the schedule gives no request
  std::int64_t next_check = t0_ + kCheckNs;
  while (open_ > 0) {
    const std::int64_t now = now_ns();
    release_due(now);
    if (now >= next_check) {
      check_deadlines(now);
      next_check = now + kCheckNs;
    }
    // Only an answer can let a request go while every connection waits for one: no polling.
    std::int64_t until = next_check;
    if (busy_ < open_ && cursor_ < total() && t0_ + run_.offsets[cursor_] < until)
      until = t0_ + run_.offsets[cursor_];
    wait(until);
  }
}

// Every request whose start has come goes out now, unless its connection still waits for the
// previous answer: then it goes when that answer comes (answered).
void Client::release_due(std::int64_t now) {
  const std::uint64_t c_count = conns_.size();
  while (cursor_ < total() && t0_ + run_.offsets[cursor_] <= now) {
    Conn& c = conns_[cursor_ % c_count];
    if (!c.done && !c.busy && c.next == cursor_) send_request(c, cursor_);
    ++cursor_;
  }
}

void Client::wait(std::int64_t until) {
  epoll_event events[kEvents];
  const std::int64_t gap = until - now_ns() - kSpinNs;
  int n;
  if (gap <= 0) {
    n = ::epoll_wait(epoll_, events, kEvents, 0);
  } else {
    const timespec ts{static_cast<time_t>(gap / 1'000'000'000),
                      static_cast<long>(gap % 1'000'000'000)};
    n = ::epoll_pwait2(epoll_, events, kEvents, &ts, nullptr);
  }
  if (n < 0 && errno != EINTR) throw_io("epoll_wait");
  for (int i = 0; i < n; ++i) {
    Conn& c = conns_[events[i].data.u32];
    if (c.done) continue;
    if ((events[i].events & EPOLLOUT) && c.writing) push(c);
    if (!c.done && (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))) on_readable(c);
  }
}

void Client::send_request(Conn& c, std::uint64_t k) {
  encode_header(c.prefix, FrameKind::request, k, o_.request_size, o_.response_size);
  stamp_from(c.prefix + kHeaderSize, base_.data(), stamped_, k);
  c.prefix_size = kHeaderSize + stamped_;
  c.out_total = kHeaderSize + o_.request_size;
  c.out_sent = c.got = 0;
  c.want = kHeaderSize + o_.response_size;
  set_busy(c, true);
  const std::int64_t sent = now_ns();
  run_.records[k].sent = sent - t0_;
  c.deadline = sent + o_.io_timeout_ns;
  if (c.pending != ConnError::none) return fail(c, c.pending);
  push(c);
}

void Client::send_end(Conn& c) {
  encode_header(c.prefix, FrameKind::end, c.end_seq, 0, 0);
  c.prefix_size = c.out_total = kHeaderSize;
  c.out_sent = c.got = 0;
  c.want = kEndAckSize;
  c.ending = true;
  set_busy(c, true);
  c.deadline = now_ns() + o_.io_timeout_ns;
  if (c.pending != ConnError::none) return fail(c, c.pending);
  push(c);
}

// Sends what is left of the frame: the prefix, then the base payload after its stamped bytes.
void Client::push(Conn& c) {
  while (c.out_sent < c.out_total) {
    iovec iov[2];
    int parts = 0;
    std::size_t skip = c.out_sent;
    if (skip < c.prefix_size) {
      iov[parts++] = {c.prefix + skip, c.prefix_size - skip};
      skip = 0;
    } else {
      skip -= c.prefix_size;
    }
    const std::size_t rest = c.out_total - c.prefix_size;
    if (rest > skip)
      iov[parts++] = {const_cast<std::uint8_t*>(base_.data()) + stamped_ + skip, rest - skip};
    msghdr m{};
    m.msg_iov = iov;
    m.msg_iovlen = static_cast<std::size_t>(parts);
    const ssize_t w = ::sendmsg(c.fd, &m, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      return fail(c, error_of(errno));
    }
    c.out_sent += static_cast<std::size_t>(w);
  }
  const bool writing = c.out_sent < c.out_total;
  if (writing != c.writing) watch(c, writing ? EPOLLIN | EPOLLOUT : EPOLLIN, EPOLL_CTL_MOD);
  c.writing = writing;
}

void Client::on_readable(Conn& c) {
  if (!c.busy) return on_idle_bytes(c);
  for (;;) {
    const ssize_t r = ::recv(c.fd, c.reply.data() + c.got, c.want - c.got, 0);
    if (r == 0) return fail(c, ConnError::eof);
    if (r < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      return fail(c, error_of(errno));
    }
    c.got += static_cast<std::size_t>(r);
    if (c.got == c.want) return answered(c, now_ns());
  }
}

// Bytes or the end of stream while nothing was asked: the connection's next frame fails with
// it (it is no longer watched, so the level-triggered loop does not spin on it).
void Client::on_idle_bytes(Conn& c) {
  std::uint8_t byte;
  const ssize_t r = ::recv(c.fd, &byte, 1, 0);
  if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  c.pending = r == 0 ? ConnError::eof : r > 0 ? ConnError::protocol : error_of(errno);
  if (c.pending == ConnError::protocol)
    note(ErrorKind::protocol, "unasked bytes from the server before request " +
                                  std::to_string(c.next));
  watch(c, 0, EPOLL_CTL_DEL);
}

void Client::answered(Conn& c, std::int64_t received) {
  set_busy(c, false);
  if (c.ending) return check_end_ack(c);
  const std::uint64_t k = c.next;
  run_.records[k].received = received - t0_;
  const ConnError verdict = validate(c, k);
  run_.records[k].error = verdict;
  c.next += conns_.size();
  // A header that failed leaves the stream's framing in doubt: the connection ends there.
  if (verdict == ConnError::protocol) return close_conn(c, c.next);
  if (c.next >= total()) return send_end(c);
  if (t0_ + run_.offsets[c.next] <= now_ns()) send_request(c, c.next);  // late: it waited
}

// The RESPONSE's checks (sections 2-3), after `received`.
ConnError Client::validate(const Conn& c, std::uint64_t k) {
  const std::uint8_t* reply = c.reply.data();
  if (auto bad = check_reply_header(decode_header(reply), FrameKind::response, k,
                                    o_.response_size, o_.request_size)) {
    note(ErrorKind::protocol, at_sequence(*bad, k));
    return ConnError::protocol;
  }
  const std::size_t off = first_difference(reply + kHeaderSize, expected_.data(),
                                           o_.response_size, k);
  if (off == kNoDifference) return ConnError::none;
  note(ErrorKind::payload_mismatch,
       at_sequence("payload mismatch at offset " + std::to_string(off), k));
  return ConnError::payload_mismatch;
}

void Client::check_end_ack(Conn& c) {
  const std::uint8_t* reply = c.reply.data();
  if (auto bad = check_reply_header(decode_header(reply), FrameKind::end_ack, c.end_seq, 8, 0))
    note(ErrorKind::protocol, "END_ACK: " + *bad);
  else if (const std::uint64_t corrupted = load_le64(reply + kHeaderSize); corrupted != 0)
    note(ErrorKind::payload_mismatch,
         "server received " + std::to_string(corrupted) + " corrupted request payloads");
  close_conn(c, total());
}

// A request that failed (reset, eof, timeout, io) ends its connection; END's failure is the
// run's error (every request was answered by then).
void Client::fail(Conn& c, ConnError error) {
  if (c.ending) {
    note(error == ConnError::timeout ? ErrorKind::timeout : ErrorKind::io,
         "END_ACK: " + std::string(burst::conn_error_name(error)));
    return close_conn(c, total());
  }
  run_.records[c.next].error = error;
  close_conn(c, c.next + conns_.size());
}

// Closes the connection; its requests from `not_sent_from` on are never sent.
void Client::close_conn(Conn& c, std::uint64_t not_sent_from) {
  for (std::uint64_t k = not_sent_from; k < total(); k += conns_.size())
    run_.records[k].error = ConnError::not_sent;
  ::close(c.fd);  // also leaves the epoll set
  c.fd = -1;
  set_busy(c, false);
  c.done = true;
  --open_;
}

void Client::check_deadlines(std::int64_t now) {
  for (Conn& c : conns_)
    if (!c.done && c.busy && c.deadline <= now) fail(c, ConnError::timeout);
}

}  // namespace

void run_load_client(const DriveOptions& o, const burst::Sockets& sockets, Recorder& recorder) {
  Run run = plan_run(o);
  Client client(o, run);
  client.connect_all(sockets.address(o.endpoint));
  client.run();
  publish(run, o, recorder);
  if (!client.error.empty()) throw PeerError(client.error_kind, client.error);
}

}  // namespace ipclab::load
