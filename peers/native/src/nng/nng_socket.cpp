#include "nng_socket.hpp"

#include "error.hpp"
#include "transport/timeout.hpp"

namespace ipclab::nanomsg {

std::string library_version() { return std::string("nng ") + nng_version(); }

int stream_buffer(std::uint64_t size) noexcept {
  constexpr std::uint64_t kBudget = 64ull << 20, kDefault = 1000;
  const std::uint64_t n = size == 0 ? kDefault : kBudget / size;
  return static_cast<int>(n < 1 ? 1 : n > kDefault ? kDefault : n);
}

void throw_nng(const std::string& what, int rv) {
  if (rv == NNG_ETIMEDOUT) throw_timeout();
  throw PeerError(ErrorKind::io, what + ": " + nng_strerror(rv));
}

Socket::Socket(Opener open) {
  if (const int rv = open(&socket_); rv != 0) throw_nng("nng socket", rv);
}

Socket::~Socket() { nng_close(socket_); }

void Socket::set_ms(const char* option, nng_duration ms) {
  if (const int rv = nng_socket_set_ms(socket_, option, ms); rv != 0)
    throw_nng(std::string("nng option ") + option, rv);
}

void Socket::set_size(const char* option, std::size_t bytes) {
  if (const int rv = nng_socket_set_size(socket_, option, bytes); rv != 0)
    throw_nng(std::string("nng option ") + option, rv);
}

void Socket::set_int(const char* option, int value) {
  if (const int rv = nng_socket_set_int(socket_, option, value); rv != 0)
    throw_nng(std::string("nng option ") + option, rv);
}

int Socket::listen(const std::string& url, int ipc_mode) {
  nng_listener listener;
  if (const int rv = nng_listener_create(&listener, socket_, url.c_str()); rv != 0)
    throw_nng("listen " + url, rv);
  const bool tcp = url.rfind("tcp://", 0) == 0;
  // Options on the endpoint they apply to (libnng deprecates transport options on a socket).
  if (const int rv = tcp ? nng_listener_set_bool(listener, NNG_OPT_TCP_NODELAY, true) : 0; rv != 0)
    throw_nng("listen " + url + ": " NNG_OPT_TCP_NODELAY, rv);
  if (ipc_mode != 0) {  // the file is made with this mode, never wider for a moment
    if (const int rv = nng_listener_set_int(listener, NNG_OPT_IPC_PERMISSIONS, ipc_mode); rv != 0)
      throw_nng("listen " + url + ": permissions", rv);
  }
  if (const int rv = nng_listener_start(listener, 0); rv != 0) throw_nng("listen " + url, rv);
  if (!tcp) return 0;
  int port = 0;
  if (const int rv = nng_listener_get_int(listener, NNG_OPT_TCP_BOUND_PORT, &port); rv != 0)
    throw_nng("listen " + url + ": bound port", rv);
  return port;
}

void Socket::dial(const std::string& url) {
  nng_dialer dialer;
  if (const int rv = nng_dialer_create(&dialer, socket_, url.c_str()); rv != 0)
    throw_nng("dial " + url, rv);
  if (url.rfind("tcp://", 0) == 0) {
    if (const int rv = nng_dialer_set_bool(dialer, NNG_OPT_TCP_NODELAY, true); rv != 0)
      throw_nng("dial " + url + ": " NNG_OPT_TCP_NODELAY, rv);
  }
  // Flags 0: synchronous, the first attempt's failure is returned at once (a server that is
  // not there is an io error, not a wait for --io-timeout while the dialer retries).
  if (const int rv = nng_dialer_start(dialer, 0); rv != 0) throw_nng("dial " + url, rv);
}

void Socket::send(const void* p, std::size_t n) {
  if (const int rv = nng_send(socket_, const_cast<void*>(p), n, 0); rv != 0)
    throw_nng("send of a " + std::to_string(n) + "-byte message", rv);
}

void Message::receive(Socket& socket) {
  release();
  if (const int rv = nng_recvmsg(socket.handle(), &msg_, 0); rv != 0) {
    msg_ = nullptr;
    throw_nng("receive", rv);
  }
}

bool Message::try_receive(Socket& socket) {
  release();
  const int rv = nng_recvmsg(socket.handle(), &msg_, NNG_FLAG_NONBLOCK);
  if (rv == 0) return true;
  msg_ = nullptr;
  if (rv == NNG_EAGAIN) return false;
  throw_nng("receive", rv);
}

}  // namespace ipclab::nanomsg
