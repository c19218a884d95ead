// The event-loop server models of PROTOCOL.md 11.4: epoll (one loop over non-blocking
// connections) and epoll-reuseport (W loops in W threads, each with its own listener on the same
// port, SO_REUSEPORT). A loop accepts one connection per turn (accept_one times the accept and
// loop phases) and moves every connection's bytes as they come, timing its transfer and close.
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "burst/exchange.hpp"
#include "burst/models.hpp"
#include "burst/serving.hpp"
#include "error.hpp"
#include "lifecycle.hpp"
#include "patterns.hpp"  // now_ns
#include "responder.hpp"  // RequestHandler

namespace ipclab::burst {

namespace {

// ---- epoll: non-blocking connections in one event loop per listener -----------------------------

// A connection of an event loop: its frame as it arrives, then what is left of its answer.
// Under load it goes back to reading a header after each RESPONSE.
struct LoopConn {
  std::uint64_t index = 0;
  std::vector<std::uint8_t> in = std::vector<std::uint8_t>(kHeaderSize);
  std::size_t got = 0;
  Header header{};
  std::vector<std::uint8_t> out;  // an answer the socket did not take at once
  std::size_t sent = 0;
  std::uint64_t corrupted = 0;    // load: for END_ACK
  std::uint8_t ack[kEndAckSize] = {};
};

class EventLoop {
 public:
  EventLoop(Server& s, int listen_fd, std::int32_t worker)
      : s_(s), listen_fd_(listen_fd), acceptor_{worker} {
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_ < 0) throw_io("epoll_create1");
    watch(listen_fd_, EPOLLIN, EPOLL_CTL_ADD);
    watch(s_.stop_fd, EPOLLIN, EPOLL_CTL_ADD);
  }
  ~EventLoop() { ::close(epoll_); }

  // Until every connection of the server has ended (stop_fd).
  void run() {
    epoll_event events[64];
    for (;;) {
      const int n = ::epoll_wait(epoll_, events, 64, -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw_io("epoll_wait");
      }
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == s_.stop_fd) return;
        if (fd == listen_fd_) accept_next();
        else on_ready(fd, events[i].events);
      }
    }
  }

 private:
  void watch(int fd, std::uint32_t events, int op) {
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = fd;
    if (::epoll_ctl(epoll_, op, fd, &ev) != 0) throw_io("epoll_ctl");
  }

  // One accept per turn of the loop, as the model says.
  void accept_next() {
    if (s_.counters->accepted.load() >= s_.n) {
      watch(listen_fd_, 0, EPOLL_CTL_DEL);
      return;
    }
    const Accepted c = accept_one(s_, listen_fd_, acceptor_, SOCK_NONBLOCK);
    if (c.fd < 0) return;
    conns_[c.fd].index = c.index;
    watch(c.fd, EPOLLIN, EPOLL_CTL_ADD);
  }

  void on_ready(int fd, std::uint32_t events) {
    LoopConn& c = conns_[fd];
    if (!c.out.empty()) return write_rest(fd, c);
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) read_some(fd, c);
  }

  void read_some(int fd, LoopConn& c) {
    ConnTimes& t = s_.time(c.index);
    if (t.transfer_start == 0) t.transfer_start = now_ns();
    for (;;) {
      const std::size_t need =
          c.got < kHeaderSize ? kHeaderSize : kHeaderSize + c.header.length;
      if (c.got >= need) return respond(fd, c);
      if (c.got == c.in.size()) grow_toward(c.in, need);
      const std::size_t room = (need < c.in.size() ? need : c.in.size()) - c.got;
      const ssize_t r = ::recv(fd, c.in.data() + c.got, room, 0);
      if (r == 0) return end(fd, closed_after(s_, c.got));
      if (r < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        return end(fd, error_of_errno(errno));
      }
      c.got += static_cast<std::size_t>(r);
      if (c.got == kHeaderSize) {
        c.header = decode_header(c.in.data());
        if (const char* why = s_.exchange.check(c.header)) {
          print_line(std::string("rejected frame: ") + why);
          return end(fd, ConnError::protocol);
        }
      }
    }
  }

  void respond(int fd, LoopConn& c) {
    RequestHandler& answer = handler();
    const Reply r = answer_frame(s_, answer, c.header, c.ack, c.corrupted);
    const ssize_t w = ::send(fd, r.data, r.size, MSG_NOSIGNAL);
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      if (r.response) answer.after_send();
      return end(fd, error_of_errno(errno));
    }
    const std::size_t sent = w > 0 ? static_cast<std::size_t>(w) : 0;
    if (sent < r.size) {  // the rest when the socket has room; the frame buffer is shared
      c.out.assign(r.data + sent, r.data + r.size);
      if (r.response) answer.after_send();
      watch(fd, EPOLLOUT, EPOLL_CTL_MOD);
      return;
    }
    if (r.response) answer.after_send();
    responded(fd, c);
  }

  void write_rest(int fd, LoopConn& c) {
    while (c.sent < c.out.size()) {
      const ssize_t w = ::send(fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        return end(fd, error_of_errno(errno));
      }
      c.sent += static_cast<std::size_t>(w);
    }
    watch(fd, EPOLLIN, EPOLL_CTL_MOD);
    responded(fd, c);
  }

  void responded(int fd, LoopConn& c) {
    s_.time(c.index).transfer_end = now_ns();
    ConnError error;
    if (!after_reply(s_, handler(), c.header, c.in.data() + kHeaderSize, c.corrupted, error))
      return end(fd, error);
    c.got = c.sent = 0;  // load: the next frame (level-triggered: its bytes wake the loop)
    c.out.clear();
  }

  void end(int fd, ConnError error) {
    const std::uint64_t index = conns_[fd].index;
    conns_.erase(fd);
    ::close(fd);
    s_.time(index).finish(error, now_ns());
    connection_ended(s_);
  }

  RequestHandler& handler() {
    if (!handler_) handler_.emplace(config_of(s_));
    return *handler_;
  }

  Server& s_;
  int listen_fd_;
  Acceptor acceptor_;
  int epoll_ = -1;
  std::unordered_map<int, LoopConn> conns_;
  std::optional<RequestHandler> handler_;
};

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) throw_io("fcntl(O_NONBLOCK)");
}

// ---- epoll-reuseport: W loops, each with its own listener on the same port --------------------

std::vector<int> g_listeners;

}  // namespace

void start_epoll(Server& s) { set_nonblocking(s.listen_fd); }

void serve_epoll(Server& s) { EventLoop(s, s.listen_fd, 0).run(); }

void start_reuseport(Server& s) {
  g_listeners.push_back(s.listen_fd);
  const Endpoint same = s.sockets.same_port(s.endpoint);
  std::string bound;
  for (std::uint32_t w = 1; w < s.workers; ++w)
    g_listeners.push_back(s.sockets.listen(same, s.options.backlog, true, bound));
  for (const int fd : g_listeners) set_nonblocking(fd);
}

void serve_reuseport(Server& s) {
  std::vector<std::thread> loops;
  for (std::size_t w = 0; w < g_listeners.size(); ++w)
    loops.emplace_back([&s, w] {
      try {
        EventLoop(s, g_listeners[w], static_cast<std::int32_t>(w)).run();
      } catch (const PeerError& e) {
        print_line(std::string(kind_name(e.kind())) + ": loop " + std::to_string(w) + ": " +
                   e.what());
        exit_process(exit_code(e.kind()));
      }
    });
  for (std::thread& loop : loops) loop.join();
}

}  // namespace ipclab::burst
