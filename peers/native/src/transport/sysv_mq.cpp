// sysv-mq: one System V message queue, M = 8192, mtype = direction (1 client->server,
// 2 server->client). Blocking msgsnd/msgrcv through preallocated message buffers.
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
  SysvMqChannel(int qid, long send_type, long receive_type, int key = 0)
      : MessageChannel(kSysvMqMessage),
        key_(key),
        qid_(qid),
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
      if (::msgsnd(qid_, m, n, 0) == 0) return;
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
      const ssize_t r = ::msgrcv(qid_, in_.get(), kSysvMqMessage, receive_type_, 0);
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
    qid_ = ::msgget(key_, 0);
    if (qid_ < 0) throw_io("msgget " + detail::describe_sysv_key(key_));
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
  int qid_;
  long receive_type_;
  std::unique_ptr<MsgBuf> out_, in_;
  std::unique_ptr<MsgBuf> stream_out_;  // send_buffer(): a stream client's message, in place
};

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
    return {std::make_unique<SysvMqChannel>(qid, 2, 1), detail::describe_sysv_key(key)};
  }
  throw PeerError(ErrorKind::io, "msgget: 100 tagged keys in use");
}

std::unique_ptr<MessageChannel> open_sysv_mq(const KeyEndpoint& endpoint) {
  const int qid = ::msgget(endpoint.key, 0);
  if (qid < 0) throw_io("msgget " + detail::describe_sysv_key(endpoint.key));
  return std::make_unique<SysvMqChannel>(qid, 1, 2, endpoint.key);
}

}  // namespace ipclab
