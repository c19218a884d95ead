// sysv-mq: one System V message queue, M = 8192, mtype = direction (1 client->server,
// 2 server->client). Blocking msgsnd/msgrcv through preallocated message buffers. Load (11.5.5):
// a request queue and a reply queue, connection c's answers with mtype 2 + c.
#include <sys/ipc.h>
#include <sys/msg.h>

#include <cerrno>
#include <cstring>

#include "../error.hpp"
#include "../lifecycle.hpp"
#include "message.hpp"
#include "timeout.hpp"

namespace ipclab {

namespace {

constexpr std::size_t kSysvMqMessage = 8192;

struct MsgBuf {
  long mtype;
  std::uint8_t mtext[kSysvMqMessage];
};

class SysvMqChannel final : public MessageChannel {
 public:
  // Sends on send_qid, receives from receive_qid (one queue but under load). key: the client's
  // (short's msgget per message); a load client has none.
  SysvMqChannel(int send_qid, int receive_qid, long send_type, long receive_type, int key = 0)
      : MessageChannel(kSysvMqMessage),
        key_(key),
        send_qid_(send_qid),
        receive_qid_(receive_qid),
        receive_type_(receive_type),
        out_(std::make_unique<MsgBuf>()),
        in_(std::make_unique<MsgBuf>()),
        stream_out_(std::make_unique<MsgBuf>()) {
    out_->mtype = stream_out_->mtype = send_type;
  }

  // msgsnd takes the type in front of the bytes: bytes from elsewhere are copied behind it, those
  // already in the send buffer go as they are.
  void send(const std::uint8_t* p, std::size_t n) override {
    MsgBuf* m = stream_out_.get();
    if (p != m->mtext) {
      m = out_.get();
      std::memcpy(m->mtext, p, n);
    }
    for (;;) {
      if (::msgsnd(send_qid_, m, n, 0) == 0) return;
      fail_unless_interrupted("msgsnd");
    }
  }
  std::uint8_t* send_buffer() noexcept override { return stream_out_->mtext; }

  std::size_t receive(std::uint8_t* dst) override {
    std::size_t n = 0;
    const std::uint8_t* p = receive_view(nullptr, n);
    std::memcpy(dst, p, n);
    return n;
  }
  const std::uint8_t* receive_view(std::uint8_t*, std::size_t& n) override {
    for (;;) {
      const ssize_t r = ::msgrcv(receive_qid_, in_.get(), kSysvMqMessage, receive_type_, 0);
      if (r >= 0) {
        n = static_cast<std::size_t>(r);
        return in_->mtext;
      }
      if (errno == E2BIG)
        throw PeerError(ErrorKind::protocol, "message larger than 8192 bytes");
      fail_unless_interrupted("msgrcv");
    }
  }

  // short (11.2): msgget per message, as the published comparison did (System V has no close).
  void reopen() override {
    send_qid_ = receive_qid_ = ::msgget(key_, 0);
    if (send_qid_ < 0) throw_io("msgget " + detail::describe_sysv_key(key_));
  }

 private:
  // EINTR: the --io-timeout timer (client) or a signal; anything else is fatal.
  static void fail_unless_interrupted(const char* call) {
    if (errno == EINTR) {
      if (receive_timed_out()) throw_timeout();
      return;
    }
    if (errno == EIDRM || errno == EINVAL) detail::throw_removed(call);
    throw_io(call);
  }

  int key_;
  int send_qid_, receive_qid_;
  long receive_type_;
  std::unique_ptr<MsgBuf> out_, in_;
  std::unique_ptr<MsgBuf> stream_out_;  // send_buffer(): a stream client's message, in place
};

// Load (11.5.5), server side: a worker's own message buffers over the two queues.
class SysvLoadWorker final : public LoadQueueWorker {
 public:
  SysvLoadWorker(int request, int reply)
      : request_(request), reply_(reply), in_(std::make_unique<MsgBuf>()),
        out_(std::make_unique<MsgBuf>()) {}

  // MSG_NOERROR: a message over M (a raised msgmax) is cut, and rejected for its size, instead
  // of staying at the head of the queue and failing every receive after it.
  const std::uint8_t* receive(std::size_t& n) override {
    for (;;) {
      const ssize_t r = ::msgrcv(request_, in_.get(), kSysvMqMessage, 1, MSG_NOERROR);
      if (r >= 0) {
        n = static_cast<std::size_t>(r);
        return in_->mtext;
      }
      fail_unless_interrupted("msgrcv");
    }
  }

  // Blocking msgsnd, as 4.1's sender: the client drains its own mtype as the messages come.
  void reply(std::uint32_t c, const std::uint8_t* frame, std::size_t n) override {
    out_->mtype = 2 + static_cast<long>(c);
    do {
      const std::size_t part = n < kSysvMqMessage ? n : kSysvMqMessage;
      std::memcpy(out_->mtext, frame, part);
      while (::msgsnd(reply_, out_.get(), part, 0) != 0) fail_unless_interrupted("msgsnd");
      frame += part;
      n -= part;
    } while (n > 0);
  }

 private:
  static void fail_unless_interrupted(const char* call) {
    if (errno == EINTR) return;
    if (errno == EIDRM || errno == EINVAL) detail::throw_removed(call);
    throw_io(call);
  }

  int request_, reply_;
  std::unique_ptr<MsgBuf> in_, out_;
};

class SysvLoadQueues final : public LoadQueues {
 public:
  SysvLoadQueues(int request, int reply, std::string endpoint)
      : LoadQueues(std::move(endpoint)), request_(request), reply_(reply) {}
  std::unique_ptr<LoadQueueWorker> worker() override {
    return std::make_unique<SysvLoadWorker>(request_, reply_);
  }

 private:
  int request_, reply_;
};

// 0x1C1A0000 | r with r in 1 ... 0x7FFF: its reply queue's key sets bit 15 (11.5.5).
int draw_request_key() {
  for (;;) {
    const int key = detail::draw_sysv_key() & ~0x8000;
    if ((key & 0x7FFF) != 0) return key;
  }
}

}  // namespace

MessageServer create_sysv_mq() {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int key = detail::draw_sysv_key();
    SignalBlock block;  // created and registered together, or neither
    const int qid = ::msgget(key, IPC_CREAT | IPC_EXCL | 0600);
    if (qid < 0) {
      if (errno == EEXIST) continue;
      throw_io("msgget");
    }
    register_created(CreatedKind::sysv_msg, "", qid);
    return {std::make_unique<SysvMqChannel>(qid, qid, 2, 1), detail::describe_sysv_key(key)};
  }
  throw PeerError(ErrorKind::io, "msgget: 100 tagged keys in use");
}

std::unique_ptr<MessageChannel> open_sysv_mq(const KeyEndpoint& endpoint) {
  const int qid = ::msgget(endpoint.key, 0);
  if (qid < 0) throw_io("msgget " + detail::describe_sysv_key(endpoint.key));
  return std::make_unique<SysvMqChannel>(qid, qid, 1, 2, endpoint.key);
}

std::unique_ptr<LoadQueues> create_sysv_mq_load() {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int key = draw_request_key();
    SignalBlock block;  // both created and registered together, or neither
    const int request = ::msgget(key, IPC_CREAT | IPC_EXCL | 0600);
    if (request < 0) {
      if (errno == EEXIST) continue;
      throw_io("msgget");
    }
    const int reply = ::msgget(key | 0x8000, IPC_CREAT | IPC_EXCL | 0600);
    if (reply < 0) {
      const int err = errno;
      ::msgctl(request, IPC_RMID, nullptr);
      if (err == EEXIST) continue;
      throw_io_errno("msgget", err);
    }
    register_created(CreatedKind::sysv_msg, "", request);
    register_created(CreatedKind::sysv_msg, "", reply);
    // "sysv:0x1c1a1234,0x1c1a9234": both keys, the request queue's first.
    const std::string endpoint =
        detail::describe_sysv_key(key) + "," + detail::describe_sysv_key(key | 0x8000).substr(5);
    return std::make_unique<SysvLoadQueues>(request, reply, endpoint);
  }
  throw PeerError(ErrorKind::io, "msgget: 100 tagged key pairs in use");
}

std::unique_ptr<MessageChannel> open_sysv_mq_load(const KeyEndpoint& endpoint, std::uint32_t c) {
  const int request = ::msgget(endpoint.key, 0);
  if (request < 0) throw_io("msgget " + detail::describe_sysv_key(endpoint.key));
  const int reply = ::msgget(endpoint.reply_key, 0);
  if (reply < 0) throw_io("msgget " + detail::describe_sysv_key(endpoint.reply_key));
  return std::make_unique<SysvMqChannel>(request, reply, 1, 2 + static_cast<long>(c));
}

}  // namespace ipclab
