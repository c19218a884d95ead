// NNG for the nng-tcp and nng-ipc mechanisms (PROTOCOL.md 4.9), over libnng's C API: sockets and
// messages that close and free themselves, the options the contract states, and libnng's errors
// as PeerErrors. Built only where libnng is found (cmake/message_libraries.cmake); main() then installs the
// hooks (nng_hooks.hpp) that the table's rows go through.
#pragma once

#include <nng/nng.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace ipclab::nanomsg {

void install();  // nng_client.cpp: the hooks of nng_hooks.hpp

// "nng 1.5.2": the library this process runs (capabilities' `library`).
std::string library_version();

// NNG_OPT_RECVMAXSZ counts the whole message on the wire, and req0/rep0 put a 4-byte request ID
// before the body (one hop: no device between): a REQ's or REP's limit is the body's plus this.
inline constexpr std::size_t kRequestIdSize = 4;

// The client's PUSH send buffer for messages of `size` bytes (4.9): min(1000, max(1, 64 MiB /
// size)) messages, so the sender queues about 64 MiB at most.
int stream_buffer(std::uint64_t size) noexcept;

// A libnng failure (rv) of `what`: NNG_ETIMEDOUT is a timeout, anything else an io error naming
// libnng's reason.
[[noreturn]] void throw_nng(const std::string& what, int rv);

// What a socket speaks (nng_req0_open, ...).
using Opener = int (*)(nng_socket*);

class Socket {
 public:
  explicit Socket(Opener open);
  ~Socket();
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  void set_ms(const char* option, nng_duration ms);
  void set_size(const char* option, std::size_t bytes);
  void set_int(const char* option, int value);
  // Listens at url (tcp: with TCP_NODELAY; ipc: the socket file made with mode `ipc_mode`, 0
  // leaves it as the library makes it); returns the TCP port it got (0 for ipc).
  int listen(const std::string& url, int ipc_mode = 0);
  // Dials url (tcp: with TCP_NODELAY) and waits for the connection (a refused one fails at once).
  void dial(const std::string& url);
  nng_socket handle() const noexcept { return socket_; }

  // One whole message: sends n bytes (copied into a message of the library's).
  void send(const void* p, std::size_t n);

 private:
  nng_socket socket_ = NNG_SOCKET_INITIALIZER;
};

// A received message, owned here until the next receive or destruction (no copy).
class Message {
 public:
  Message() = default;
  ~Message() { release(); }
  Message(const Message&) = delete;
  Message& operator=(const Message&) = delete;
  // Receives the next message of `socket`; throws PeerError.
  void receive(Socket& socket);
  // Takes a message `socket` has already (NNG_FLAG_NONBLOCK); false when it has none.
  bool try_receive(Socket& socket);
  const std::uint8_t* data() const noexcept {
    return static_cast<const std::uint8_t*>(nng_msg_body(msg_));
  }
  std::size_t size() const noexcept { return nng_msg_len(msg_); }

 private:
  void release() noexcept {
    if (msg_ != nullptr) nng_msg_free(msg_);
    msg_ = nullptr;
  }
  nng_msg* msg_ = nullptr;
};

}  // namespace ipclab::nanomsg
