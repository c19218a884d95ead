#include "zmq_socket.hpp"

#include <cerrno>

#include "error.hpp"
#include "transport/timeout.hpp"

namespace ipclab::zeromq {

std::string library_version() {
  int major = 0, minor = 0, patch = 0;
  zmq_version(&major, &minor, &patch);
  return "libzmq " + std::to_string(major) + "." + std::to_string(minor) + "." +
         std::to_string(patch);
}

int stream_hwm(std::uint64_t size) noexcept {
  constexpr std::uint64_t kBudget = 64ull << 20, kDefault = 1000;
  const std::uint64_t n = size == 0 ? kDefault : kBudget / size;
  return static_cast<int>(n < 1 ? 1 : n > kDefault ? kDefault : n);
}

void throw_zmq(const std::string& what) {
  const int err = zmq_errno();
  if (err == EAGAIN) throw_timeout();
  throw PeerError(ErrorKind::io, what + ": " + zmq_strerror(err));
}

Context::Context() : ctx_(zmq_ctx_new()) {
  if (ctx_ == nullptr) throw_zmq("zmq_ctx_new");
}

Context::~Context() { zmq_ctx_term(ctx_); }

Socket::Socket(Context& context, int type) : socket_(zmq_socket(context.handle(), type)) {
  if (socket_ == nullptr) throw_zmq("zmq_socket");
  set(ZMQ_LINGER, 0);
}

Socket::~Socket() { zmq_close(socket_); }

void Socket::set(int option, int value) {
  if (zmq_setsockopt(socket_, option, &value, sizeof value) != 0)
    throw_zmq("zmq_setsockopt " + std::to_string(option));
}

void Socket::set_max_message(std::uint64_t bytes) {
  const auto value = static_cast<std::int64_t>(bytes);
  if (zmq_setsockopt(socket_, ZMQ_MAXMSGSIZE, &value, sizeof value) != 0)
    throw_zmq("zmq_setsockopt ZMQ_MAXMSGSIZE");
}

void Socket::bind(const std::string& address) {
  if (zmq_bind(socket_, address.c_str()) != 0) throw_zmq("bind " + address);
}

void Socket::connect(const std::string& address) {
  if (zmq_connect(socket_, address.c_str()) != 0) throw_zmq("connect " + address);
}

std::string Socket::last_endpoint() const {
  char buf[256];
  std::size_t len = sizeof buf;
  if (zmq_getsockopt(socket_, ZMQ_LAST_ENDPOINT, buf, &len) != 0)
    throw_zmq("zmq_getsockopt ZMQ_LAST_ENDPOINT");
  return std::string(buf, len > 0 ? len - 1 : 0);  // len counts the terminating NUL
}

void Socket::send(const void* p, std::size_t n) {
  while (zmq_send(socket_, p, n, 0) < 0)
    if (zmq_errno() != EINTR) throw_zmq("send of a " + std::to_string(n) + "-byte message");
}

std::size_t Socket::receive(void* buf, std::size_t capacity) {
  for (;;) {
    const int r = zmq_recv(socket_, buf, capacity, 0);
    if (r >= 0) return static_cast<std::size_t>(r);
    if (zmq_errno() != EINTR) throw_zmq("receive");
  }
}

void Message::receive(Socket& socket) {
  while (zmq_msg_recv(&msg_, socket.handle(), 0) < 0)
    if (zmq_errno() != EINTR) throw_zmq("receive");
}

}  // namespace ipclab::zeromq
