// The message channels of PROTOCOL.md section 4.1 (sysv-mq, posix-mq, sysv-shm): each is a
// MessageChannel that sends and receives single messages of at most M bytes in its side's two
// directions, and MessageStream is the one "stream over messages" adapter on top of them: a
// frame's bytes cut into messages of exactly M bytes (the last one shorter), and the receiver
// concatenating messages until it has what it wants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "../endpoint.hpp"

namespace ipclab {

class MessageChannel {
 public:
  virtual ~MessageChannel() = default;
  MessageChannel(const MessageChannel&) = delete;
  MessageChannel& operator=(const MessageChannel&) = delete;

  std::size_t max_message() const noexcept { return max_; }
  // Sends one message of n <= M bytes in this side's sending direction (blocking).
  virtual void send(const std::uint8_t* p, std::size_t n) = 0;
  // Receives one message of this side's receiving direction into dst, which has room for M
  // bytes; returns its size. Client channels throw timeout after --io-timeout; all throw io when
  // the kernel object was removed (EIDRM).
  virtual std::size_t receive(std::uint8_t* dst) = 0;
  // The same, but the bytes may stay where the channel received them (sysv-mq: its msgbuf):
  // returns where they are (scratch, room for M bytes, when they had to be copied) and sets n.
  // Valid until the next receive. A stream server sums a message there without a copy.
  virtual const std::uint8_t* receive_view(std::uint8_t* scratch, std::size_t& n) {
    n = receive(scratch);
    return scratch;
  }
  // A buffer of M bytes that send() takes without copying it (sysv-mq: a msgbuf of its own, so
  // a stream client stamps its message in place), or nullptr. Control frames never use it.
  virtual std::uint8_t* send_buffer() noexcept { return nullptr; }
  // Pattern short (11.2), client side: opens the server's objects again (sysv-mq: msgget;
  // posix-mq: mq_open of both queues) after close() (posix-mq: mq_close of both; System V has
  // no close). The others: unsupported.
  virtual void reopen();
  virtual void close() {}

 protected:
  explicit MessageChannel(std::size_t max) noexcept : max_(max) {}

 private:
  std::size_t max_;
};

class MessageStream {
 public:
  explicit MessageStream(MessageChannel& channel) noexcept
      : channel_(channel), max_(channel.max_message()) {}

  std::size_t max_message() const noexcept { return max_; }

  // ceil(n / M) messages: exactly M bytes each, the last one shorter (n >= 1).
  void send_frame(const std::uint8_t* p, std::size_t n) {
    while (n > max_) {
      channel_.send(p, max_);
      p += max_;
      n -= max_;
    }
    channel_.send(p, n);
  }

  // One channel message, where the channel has it (MessageChannel::receive_view).
  const std::uint8_t* receive_one(std::uint8_t* scratch, std::size_t& n) {
    return channel_.receive_view(scratch, n);
  }

  // buf holds `got` bytes; appends whole messages until it holds at least `want` bytes and
  // returns the new count (which may exceed want: a malformed sender's business). buf must have
  // room for want + M - 1 bytes.
  std::size_t receive_until(std::uint8_t* buf, std::size_t got, std::size_t want) {
    while (got < want) got += channel_.receive(buf + got);
    return got;
  }

 private:
  MessageChannel& channel_;
  std::size_t max_;
};

// Server side: creates the kernel objects (exclusively, 0600, registered for removal at exit)
// and returns the channel (receives direction 1, sends direction 2) and READY's endpoint.
struct MessageServer {
  std::unique_ptr<MessageChannel> channel;
  std::string endpoint;
};
MessageServer create_sysv_mq();
MessageServer create_posix_mq();
MessageServer create_sysv_shm();

// Section 4.3 (shm, shm-spin, shm-futex): how a side waits for the other.
enum class ShmWait { spin, futex, hybrid };
// Creates /ipclab-<pid>-shm (READY endpoint posix:/ipclab-<pid>). spin_us: hybrid only.
MessageServer create_posix_shm(ShmWait wait, std::uint64_t spin_us);

// Client side: opens the server's objects (sends direction 1, receives direction 2).
// sysv-mq and posix-mq rely on the ReceiveWatchdog (timeout.hpp) for --io-timeout; sysv-shm
// waits with semtimedop bounded by timeout_ns.
std::unique_ptr<MessageChannel> open_sysv_mq(const KeyEndpoint& endpoint);
std::unique_ptr<MessageChannel> open_posix_mq(const PosixNameEndpoint& endpoint);
std::unique_ptr<MessageChannel> open_sysv_shm(const KeyEndpoint& endpoint, std::int64_t timeout_ns);
// Opens <prefix>-shm. Every wait (spinning or on the futex) throws timeout after timeout_ns.
std::unique_ptr<MessageChannel> open_posix_shm(const PosixNameEndpoint& endpoint, ShmWait wait,
                                               std::uint64_t spin_us, std::int64_t timeout_ns);

// ---- load over a message queue (PROTOCOL.md 11.5.5) ------------------------------------------
// Every client shares one request queue; each connection c has a reply address of its own
// (sysv-mq: mtype 2 + c on a second queue; posix-mq: a queue /ipclab-<pid>-r<c> its client makes).

// A REQUEST or END is one message of at most M = 8192 bytes: a request payload of at most this.
inline constexpr std::uint32_t kQueueLoadMaxRequest = 8192 - 24;

// Client side: connection c's channel, which sends single messages to the request queue and
// receives the messages of its reply address. sysv-mq: untimed (a lost answer waits until the
// queues are removed: io); posix-mq: makes the reply queue (unlinked when the channel is
// destroyed), its sends and receives bounded by timeout_ns (timeout).
std::unique_ptr<MessageChannel> open_sysv_mq_load(const KeyEndpoint& endpoint, std::uint32_t c);
std::unique_ptr<MessageChannel> open_posix_mq_load(const PosixNameEndpoint& endpoint,
                                                   std::uint32_t c, std::uint32_t response_size,
                                                   std::int64_t timeout_ns);

// Server side: one worker thread's access to the queues, with message buffers of its own.
class LoadQueueWorker {
 public:
  virtual ~LoadQueueWorker() = default;
  // The next message of the request queue (blocking), valid until the next receive; io when the
  // queue was removed.
  virtual const std::uint8_t* receive(std::size_t& n) = 0;
  // Sends a frame to connection c's reply address in messages of M bytes, the last shorter.
  // posix-mq drops an answer its reply queue has no room for, with a line on stderr.
  virtual void reply(std::uint32_t c, const std::uint8_t* frame, std::size_t n) = 0;
  // Connection c had its END_ACK (posix-mq: its reply queue is closed, so that the next client's
  // queue of that name is opened afresh).
  virtual void ended(std::uint32_t) {}
};

// The server's queues (created exclusively, 0600, registered for removal) and READY's endpoint.
class LoadQueues {
 public:
  virtual ~LoadQueues() = default;
  virtual std::unique_ptr<LoadQueueWorker> worker() = 0;
  const std::string& endpoint() const noexcept { return endpoint_; }

 protected:
  explicit LoadQueues(std::string endpoint) : endpoint_(std::move(endpoint)) {}

 private:
  std::string endpoint_;
};
std::unique_ptr<LoadQueues> create_sysv_mq_load();
std::unique_ptr<LoadQueues> create_posix_mq_load();

namespace detail {
// A fresh tagged System V key 0x1C1A0000 | r, r a random 16-bit number other than 0.
int draw_sysv_key();
std::string describe_sysv_key(int key);  // "sysv:0x1c1a1234"
[[noreturn]] void throw_removed(const char* call);  // io: EIDRM, objects removed
}  // namespace detail

}  // namespace ipclab
