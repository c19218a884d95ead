// posix-mq: two POSIX queues, <prefix>-1 (client -> server) and <prefix>-2 (server -> client),
// mq_maxmsg 10, mq_msgsize 8192 (M). The client's --io-timeout is the ReceiveWatchdog's. Load
// (11.5.5): <prefix>-1 and a reply queue <prefix>-r<c> per connection, made by its client.
#include <fcntl.h>
#include <mqueue.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "../error.hpp"
#include "../frame.hpp"
#include "../lifecycle.hpp"
#include "message.hpp"
#include "timeout.hpp"

namespace ipclab {

namespace {

constexpr long kPosixMqMessage = 8192;
constexpr long kPosixMqDepth = 10;

class PosixMqChannel final : public MessageChannel {
 public:
  // prefix: the client's, for reopen(); empty for the server.
  PosixMqChannel(mqd_t send_q, mqd_t receive_q, std::string prefix = {})
      : MessageChannel(kPosixMqMessage), send_(send_q), receive_(receive_q),
        send_name_(prefix + "-1"), receive_name_(prefix + "-2") {}
  ~PosixMqChannel() override {
    close();
    if (!made_.empty()) {  // a load client's reply queue: its client unlinks it (11.5.5)
      ::mq_unlink(made_.c_str());
      forget_reply_queue(made_number_);
    }
  }

  // Load (11.5.5): sends and receives bounded by timeout_ns (mq_timedsend, mq_timedreceive),
  // and the reply queue this client made, unlinked with the channel.
  void for_load(std::int64_t timeout_ns, std::string made, unsigned number) {
    timeout_ns_ = timeout_ns;
    made_ = std::move(made);
    made_number_ = number;
  }

  // Untimed calls: the client's --io-timeout is the ReceiveWatchdog's signal (EINTR), as for
  // sysv-mq. mq_timedsend / mq_timedreceive arm a kernel timer whenever they block, which a
  // stream does every few messages (measured: +1.8 us of CPU per 1 KiB message).
  void send(const std::uint8_t* p, std::size_t n) override {
    const char* c = reinterpret_cast<const char*>(p);
    if (timeout_ns_ != 0) return timed_send(c, n);
    while (::mq_send(send_, c, n, 0) != 0) fail_unless_interrupted("mq_send");
  }

  std::size_t receive(std::uint8_t* dst) override {
    char* c = reinterpret_cast<char*>(dst);
    if (timeout_ns_ != 0) return timed_receive(c);
    for (;;) {
      const ssize_t r = ::mq_receive(receive_, c, kPosixMqMessage, nullptr);
      if (r >= 0) return static_cast<std::size_t>(r);
      fail_unless_interrupted("mq_receive");
    }
  }

  // short (11.2): mq_open of both queues per message, mq_close after it.
  void reopen() override;
  void close() override {
    if (send_ != kClosed) ::mq_close(send_);
    if (receive_ != kClosed) ::mq_close(receive_);
    send_ = receive_ = kClosed;
  }

 private:
  static void fail_unless_interrupted(const char* call) {
    if (errno == EINTR) {
      if (receive_timed_out()) throw_timeout();
      return;
    }
    throw_io(call);
  }

  // The timed calls take an absolute CLOCK_REALTIME instant.
  timespec deadline() const noexcept {
    timespec at;
    ::clock_gettime(CLOCK_REALTIME, &at);
    const std::int64_t ns = at.tv_nsec + timeout_ns_ % 1'000'000'000;
    at.tv_sec += static_cast<time_t>(timeout_ns_ / 1'000'000'000 + ns / 1'000'000'000);
    at.tv_nsec = static_cast<long>(ns % 1'000'000'000);
    return at;
  }
  void timed_send(const char* c, std::size_t n) {
    const timespec at = deadline();
    while (::mq_timedsend(send_, c, n, 0, &at) != 0) {
      if (errno == ETIMEDOUT)
        throw PeerError(ErrorKind::timeout, "the request queue stayed full for --io-timeout");
      fail_unless_interrupted("mq_timedsend");
    }
  }
  std::size_t timed_receive(char* c) {
    const timespec at = deadline();
    for (;;) {
      const ssize_t r = ::mq_timedreceive(receive_, c, kPosixMqMessage, nullptr, &at);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno == ETIMEDOUT) throw_timeout();
      fail_unless_interrupted("mq_timedreceive");
    }
  }

  static constexpr mqd_t kClosed = static_cast<mqd_t>(-1);
  mqd_t send_, receive_;
  std::string send_name_, receive_name_;
  std::int64_t timeout_ns_ = 0;  // 0: untimed calls (the ReceiveWatchdog's)
  std::string made_;             // a load client's reply queue, or empty
  unsigned made_number_ = 0;     // its connection number
};

mqd_t open_queue(const std::string& name, int flags, mq_attr* attr) {
  const mqd_t q = attr ? ::mq_open(name.c_str(), flags | O_CLOEXEC, 0600, attr)
                       : ::mq_open(name.c_str(), flags | O_CLOEXEC);
  if (q == static_cast<mqd_t>(-1)) {
    if (errno == EEXIST) throw PeerError(ErrorKind::io, "path exists: POSIX queue " + name);
    throw_io("mq_open " + name);
  }
  return q;
}

void PosixMqChannel::reopen() {
  close();
  send_ = open_queue(send_name_, O_RDWR, nullptr);
  receive_ = open_queue(receive_name_, O_RDWR, nullptr);
}

// Load (11.5.5), server side: the reply queues the clients made, each opened when it is first
// needed (O_WRONLY | O_NONBLOCK) and kept open, shared by the workers; registered for unlinking
// at exit.
class PosixReplyQueues {
 public:
  explicit PosixReplyQueues(std::string prefix) : prefix_(std::move(prefix)) {
    for (auto& q : open_) q.store(-1, std::memory_order_relaxed);
  }
  ~PosixReplyQueues() {
    for (auto& q : open_)
      if (const int d = q.exchange(-1); d >= 0) ::mq_close(d);
  }

  // Connection c's reply queue, opened now if it is not yet; -1 when it cannot be (said on
  // stderr: that answer is dropped).
  mqd_t get(std::uint32_t c) {
    const int q = open_[c].load(std::memory_order_acquire);
    if (q >= 0) return q;
    std::lock_guard lock(mutex_);
    if (const int again = open_[c].load(std::memory_order_relaxed); again >= 0) return again;
    const std::string name = prefix_ + "-r" + std::to_string(c);
    SignalBlock block;  // opened and registered for unlinking together
    const mqd_t fresh = ::mq_open(name.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fresh == static_cast<mqd_t>(-1)) {
      print_line("connection " + std::to_string(c) + ": answer dropped: mq_open " + name + ": " +
                 std::strerror(errno));
      return -1;
    }
    register_reply_queue(c);
    open_[c].store(fresh, std::memory_order_release);
    return fresh;
  }

  // After its END_ACK: a later client's queue of the same name is a new queue.
  void close(std::uint32_t c) {
    std::lock_guard lock(mutex_);
    if (const int d = open_[c].exchange(-1); d >= 0) ::mq_close(d);
  }

 private:
  std::string prefix_;
  std::mutex mutex_;  // opening and closing; a send only loads
  std::array<std::atomic<int>, kReplyAddresses> open_;
};

class PosixLoadWorker final : public LoadQueueWorker {
 public:
  PosixLoadWorker(mqd_t request, PosixReplyQueues& replies)
      : request_(request), replies_(replies), in_(kPosixMqMessage) {}

  const std::uint8_t* receive(std::size_t& n) override {
    for (;;) {
      const ssize_t r = ::mq_receive(request_, reinterpret_cast<char*>(in_.data()),
                                     kPosixMqMessage, nullptr);
      if (r >= 0) {
        n = static_cast<std::size_t>(r);
        return in_.data();
      }
      if (errno != EINTR) throw_io("mq_receive");
    }
  }

  // A full queue at the first message means the client has an answer it has not read: that
  // answer is dropped rather than block the server. Once the first went, the client is reading
  // this answer: the rest waits for room (an answer of more than the queue's messages).
  void reply(std::uint32_t c, const std::uint8_t* frame, std::size_t n) override {
    const mqd_t q = replies_.get(c);
    if (q == static_cast<mqd_t>(-1)) return;
    bool first = true;
    do {
      const std::size_t part = n < kPosixMqMessage ? n : kPosixMqMessage;
      if (!send_part(q, frame, part, first, c)) return;
      frame += part;
      n -= part;
      first = false;
    } while (n > 0);
  }

  void ended(std::uint32_t c) override { replies_.close(c); }

 private:
  static constexpr int kRoomWaitMs = 10'000;  // a client that stops reading mid-answer

  bool send_part(mqd_t q, const std::uint8_t* p, std::size_t n, bool first, std::uint32_t c) {
    for (;;) {
      if (::mq_send(q, reinterpret_cast<const char*>(p), n, 0) == 0) return true;
      if (errno == EINTR) continue;
      if (errno == EAGAIN && !first) {
        pollfd room{q, POLLOUT, 0};
        if (::poll(&room, 1, kRoomWaitMs) > 0 || errno == EINTR) continue;
      }
      print_line("connection " + std::to_string(c) + ": answer dropped: " +
                 (errno == EAGAIN ? std::string("its reply queue is full")
                                  : std::string("mq_send: ") + std::strerror(errno)));
      return false;
    }
  }

  mqd_t request_;
  PosixReplyQueues& replies_;
  std::vector<std::uint8_t> in_;
};

class PosixLoadQueues final : public LoadQueues {
 public:
  PosixLoadQueues(mqd_t request, const std::string& prefix)
      : LoadQueues("posix:" + prefix), request_(request), replies_(prefix) {}
  ~PosixLoadQueues() override { ::mq_close(request_); }
  std::unique_ptr<LoadQueueWorker> worker() override {
    return std::make_unique<PosixLoadWorker>(request_, replies_);
  }

 private:
  mqd_t request_;
  PosixReplyQueues replies_;
};

}  // namespace

MessageServer create_posix_mq() {
  const std::string prefix = "/ipclab-" + std::to_string(::getpid());
  mq_attr attr{};
  attr.mq_maxmsg = kPosixMqDepth;
  attr.mq_msgsize = kPosixMqMessage;
  mqd_t q[2];
  for (int i = 0; i < 2; ++i) {
    const std::string name = prefix + "-" + std::to_string(i + 1);
    SignalBlock block;  // created and registered together, or neither
    q[i] = open_queue(name, O_RDWR | O_CREAT | O_EXCL, &attr);
    register_created(CreatedKind::posix_mq, name);
  }
  return {std::make_unique<PosixMqChannel>(q[1], q[0]), "posix:" + prefix};
}

std::unique_ptr<MessageChannel> open_posix_mq(const PosixNameEndpoint& endpoint) {
  const std::string& prefix = endpoint.prefix;
  const mqd_t q1 = open_queue(prefix + "-1", O_RDWR, nullptr);
  mqd_t q2 = static_cast<mqd_t>(-1);
  try {
    q2 = open_queue(prefix + "-2", O_RDWR, nullptr);
    mq_attr attr{};
    if (::mq_getattr(q2, &attr) != 0) throw_io("mq_getattr");
    if (attr.mq_msgsize > kPosixMqMessage)
      throw PeerError(ErrorKind::io, "queue " + prefix + "-2 has messages of " +
                                         std::to_string(attr.mq_msgsize) + " bytes, not 8192");
  } catch (...) {
    ::mq_close(q1);
    if (q2 != static_cast<mqd_t>(-1)) ::mq_close(q2);
    throw;
  }
  return std::make_unique<PosixMqChannel>(q1, q2, prefix);
}

std::unique_ptr<LoadQueues> create_posix_mq_load() {
  const std::string prefix = "/ipclab-" + std::to_string(::getpid());
  mq_attr attr{};
  attr.mq_maxmsg = kPosixMqDepth;
  attr.mq_msgsize = kPosixMqMessage;
  const std::string name = prefix + "-1";
  mqd_t q;
  {
    SignalBlock block;  // created and registered together, or neither
    q = open_queue(name, O_RDONLY | O_CREAT | O_EXCL, &attr);
    register_created(CreatedKind::posix_mq, name);
  }
  set_reply_queue_prefix(prefix);
  return std::make_unique<PosixLoadQueues>(q, prefix);
}

std::unique_ptr<MessageChannel> open_posix_mq_load(const PosixNameEndpoint& endpoint,
                                                   std::uint32_t c, std::uint32_t response_size,
                                                   std::int64_t timeout_ns) {
  // Room for one RESPONSE (or END_ACK) and no more: one request is outstanding at a time, and
  // 1024 such queues stay within RLIMIT_MSGQUEUE.
  mq_attr attr{};
  attr.mq_msgsize = std::min<long>(kPosixMqMessage, 24 + std::max<long>(response_size, 8));
  const long frame = 24 + static_cast<long>(response_size);
  attr.mq_maxmsg = std::min<long>(kPosixMqDepth, (frame + attr.mq_msgsize - 1) / attr.mq_msgsize);
  const std::string reply = endpoint.prefix + "-r" + std::to_string(c);
  set_reply_queue_prefix(endpoint.prefix);
  mqd_t r;
  {
    SignalBlock block;  // made and registered for unlinking together
    r = open_queue(reply, O_RDONLY | O_CREAT | O_EXCL, &attr);
    register_reply_queue(c);
  }
  mqd_t q;
  try {
    q = open_queue(endpoint.prefix + "-1", O_WRONLY, nullptr);
  } catch (...) {
    ::mq_close(r);
    ::mq_unlink(reply.c_str());
    forget_reply_queue(c);
    throw;
  }
  auto channel = std::make_unique<PosixMqChannel>(q, r);
  channel->for_load(timeout_ns, reply, c);
  return channel;
}

}  // namespace ipclab
