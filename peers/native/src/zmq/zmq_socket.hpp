// ZeroMQ for the zmq-tcp and zmq-ipc mechanisms (PROTOCOL.md 4.8), over libzmq's C API: a
// context and sockets that close themselves, the options the contract states, and libzmq's
// errors as PeerErrors. Built only where libzmq is found (cmake/message_libraries.cmake); main() then installs
// the hooks (zmq_hooks.hpp) that the table's rows go through.
#pragma once

#include <zmq.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace ipclab::zeromq {

void install();  // zmq_client.cpp: the hooks of zmq_hooks.hpp

// "libzmq 4.3.4": the library this process runs (capabilities' `library`).
std::string library_version();

// The stream's high-water mark for messages of `size` bytes (4.8): min(1000, max(1, 64 MiB /
// size)) messages, so each side queues about 64 MiB at most.
int stream_hwm(std::uint64_t size) noexcept;

// A libzmq failure of `what`: EAGAIN (a receive or send past its timeout) is a timeout, anything
// else an io error naming libzmq's reason.
[[noreturn]] void throw_zmq(const std::string& what);

class Context {
 public:
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  void* handle() const noexcept { return ctx_; }

 private:
  void* ctx_;
};

class Socket {
 public:
  // A socket of `type` (ZMQ_REQ, ...) with ZMQ_LINGER 0.
  Socket(Context& context, int type);
  ~Socket();
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  void set(int option, int value);
  void set_max_message(std::uint64_t bytes);  // ZMQ_MAXMSGSIZE
  void bind(const std::string& address);
  void connect(const std::string& address);
  std::string last_endpoint() const;  // ZMQ_LAST_ENDPOINT: the address a bind got
  void* handle() const noexcept { return socket_; }

  // One whole message: sends n bytes (EINTR retried); receives into buf (at most capacity bytes
  // copied) and returns the message's real size.
  void send(const void* p, std::size_t n);
  std::size_t receive(void* buf, std::size_t capacity);

 private:
  void* socket_;
};

// A received message, owned by libzmq until the next receive or destruction (no copy).
class Message {
 public:
  Message() { zmq_msg_init(&msg_); }
  ~Message() { zmq_msg_close(&msg_); }
  Message(const Message&) = delete;
  Message& operator=(const Message&) = delete;
  // Receives the next message of `socket` (EINTR retried); throws PeerError.
  void receive(Socket& socket);
  const std::uint8_t* data() noexcept { return static_cast<const std::uint8_t*>(zmq_msg_data(&msg_)); }
  std::size_t size() noexcept { return zmq_msg_size(&msg_); }

 private:
  zmq_msg_t msg_;
};

}  // namespace ipclab::zeromq
