// The io_uring server model (PROTOCOL.md 11.4), built only with liburing (IPCLAB_WITH_URING):
// one thread, one ring; accept, recv, send and close are ring operations. `accept` is from the
// accept's submission to its completion being reaped, `loop` from there to the next accept's
// submission; `transfer` from the first recv's submission to the send's completion; `total`
// ends with the close's completion.
#include <liburing.h>

#include <cstring>
#include <memory>
#include <optional>

#include "burst/exchange.hpp"
#include "burst/models.hpp"
#include "burst/serving.hpp"
#include "error.hpp"
#include "patterns.hpp"  // now_ns
#include "responder.hpp"  // RequestHandler

namespace ipclab::burst {

namespace {

enum class Op : std::uint8_t { accept, recv, send, close };

struct UringConn {
  Op op = Op::accept;
  int fd = -1;
  std::uint64_t index = 0;
  std::vector<std::uint8_t> in = std::vector<std::uint8_t>(64 * 1024);
  std::size_t got = 0;
  Header header{};
  std::vector<std::uint8_t> out;
  std::size_t sent = 0;
  ConnError error = ConnError::none;
  std::uint64_t corrupted = 0;  // load: for END_ACK
  std::uint8_t ack[kEndAckSize] = {};
};

class Ring {
 public:
  explicit Ring(Server& s) : s_(s) {
    if (const int rc = ::io_uring_queue_init(256, &ring_, 0); rc < 0)
      throw_io_errno("io_uring_queue_init", -rc);
  }
  ~Ring() { ::io_uring_queue_exit(&ring_); }

  void run() {
    submit_accept();
    while (ended_ < s_.n) {
      io_uring_cqe* cqe = nullptr;
      const int rc = ::io_uring_wait_cqe(&ring_, &cqe);
      if (rc == -EINTR) continue;
      if (rc < 0) throw_io_errno("io_uring_wait_cqe", -rc);
      auto* c = static_cast<UringConn*>(::io_uring_cqe_get_data(cqe));
      const int res = cqe->res;
      ::io_uring_cqe_seen(&ring_, cqe);
      complete(c, res);
    }
  }

 private:
  io_uring_sqe* sqe() {
    io_uring_sqe* e = ::io_uring_get_sqe(&ring_);
    if (e == nullptr) {  // the submission queue is full: hand it over and take a fresh entry
      ::io_uring_submit(&ring_);
      e = ::io_uring_get_sqe(&ring_);
    }
    if (e == nullptr) throw PeerError(ErrorKind::io, "io_uring: no submission entry");
    return e;
  }
  void submit(io_uring_sqe* e, UringConn* c) {
    ::io_uring_sqe_set_data(e, c);
    const int rc = ::io_uring_submit(&ring_);
    if (rc < 0) throw_io_errno("io_uring_submit", -rc);
  }

  void submit_accept() {
    if (accepting_ >= s_.n) return;
    ++accepting_;
    auto c = std::make_unique<UringConn>();
    io_uring_sqe* e = sqe();
    ::io_uring_prep_accept(e, s_.listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    accept_start_ = now_ns();
    if (last_ >= 0) s_.time(last_).next_accept_start = accept_start_;
    submit(e, c.release());
  }

  void submit_recv(UringConn* c) {
    const std::size_t need = c->got < kHeaderSize ? kHeaderSize : kHeaderSize + c->header.length;
    if (c->got == c->in.size()) grow_toward(c->in, need);
    const std::size_t room = (need < c->in.size() ? need : c->in.size()) - c->got;
    c->op = Op::recv;
    io_uring_sqe* e = sqe();
    ::io_uring_prep_recv(e, c->fd, c->in.data() + c->got, room, 0);
    submit(e, c);
  }

  void submit_send(UringConn* c) {
    c->op = Op::send;
    io_uring_sqe* e = sqe();
    ::io_uring_prep_send(e, c->fd, c->out.data() + c->sent, c->out.size() - c->sent,
                         MSG_NOSIGNAL);
    submit(e, c);
  }

  void submit_close(UringConn* c, ConnError error) {
    c->error = error;
    c->op = Op::close;
    io_uring_sqe* e = sqe();
    ::io_uring_prep_close(e, c->fd);
    submit(e, c);
  }

  void complete(UringConn* c, int res) {
    switch (c->op) {
      case Op::accept: return accepted(c, res);
      case Op::recv: return received(c, res);
      case Op::send: return sent(c, res);
      case Op::close: return closed(c);
    }
  }

  void accepted(UringConn* c, int res) {
    const std::int64_t end = now_ns();
    if (res < 0) {
      if (res == -EINTR || res == -ECONNABORTED) {
        --accepting_;
        delete c;
        return submit_accept();
      }
      throw_io_errno("accept (io_uring)", -res);
    }
    c->fd = res;
    accepted_socket(s_, res);
    c->index = s_.counters->accepted.fetch_add(1);
    ConnTimes& t = s_.time(c->index);
    t.accept_start = accept_start_;
    t.accept_end = end;
    last_ = static_cast<std::int64_t>(c->index);
    submit_accept();
    t.transfer_start = now_ns();
    submit_recv(c);
  }

  void received(UringConn* c, int res) {
    if (res == 0) return submit_close(c, closed_after(s_, c->got));
    if (res < 0) return submit_close(c, error_of_errno(-res));
    const bool had_header = c->got >= kHeaderSize;
    c->got += static_cast<std::size_t>(res);
    if (!had_header && c->got >= kHeaderSize) {
      c->header = decode_header(c->in.data());
      if (const char* why = s_.exchange.check(c->header)) {
        print_line(std::string("rejected frame: ") + why);
        return submit_close(c, ConnError::protocol);
      }
    }
    if (c->got < kHeaderSize || c->got < kHeaderSize + c->header.length) return submit_recv(c);
    RequestHandler& answer = handler();
    const Reply r = answer_frame(s_, answer, c->header, c->ack, c->corrupted);
    c->out.assign(r.data, r.data + r.size);  // outlives the next answer
    if (r.response) answer.after_send();
    submit_send(c);
  }

  void sent(UringConn* c, int res) {
    if (res < 0) return submit_close(c, error_of_errno(-res));
    c->sent += static_cast<std::size_t>(res);
    if (c->sent < c->out.size()) return submit_send(c);
    s_.time(c->index).transfer_end = now_ns();
    ConnError error;
    if (!after_reply(s_, handler(), c->header, c->in.data() + kHeaderSize, c->corrupted, error))
      return submit_close(c, error);
    c->got = c->sent = 0;  // load: the next frame
    submit_recv(c);
  }

  void closed(UringConn* c) {
    s_.time(c->index).finish(c->error, now_ns());
    connection_ended(s_);
    ++ended_;
    delete c;
  }

  RequestHandler& handler() {
    if (!handler_) handler_.emplace(config_of(s_));
    return *handler_;
  }

  Server& s_;
  io_uring ring_{};
  std::uint64_t accepting_ = 0, ended_ = 0;
  std::int64_t accept_start_ = 0, last_ = -1;
  std::optional<RequestHandler> handler_;
};

}  // namespace

void serve_io_uring(Server& s) { Ring(s).run(); }

bool io_uring_works() {
  io_uring ring{};
  if (::io_uring_queue_init(2, &ring, 0) < 0) return false;  // e.g. disabled by a sysctl
  ::io_uring_queue_exit(&ring);
  return true;
}

}  // namespace ipclab::burst
