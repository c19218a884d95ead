// load over a message queue (PROTOCOL.md 11.5.5), client side: one QueueConnection per client,
// each a thread of load/threaded.hpp. A connection c sends its REQUESTs and its END as single
// messages with flags 0x8000 + c to the shared request queue and takes its answers off its own
// reply address (sysv-mq: msgrcv of mtype 2 + c; posix-mq: the reply queue it made).
#include <algorithm>
#include <cstring>
#include <vector>

#include "error.hpp"
#include "frame.hpp"
#include "load/queues.hpp"
#include "load/threaded.hpp"
#include "payload.hpp"

namespace ipclab::load {

namespace {

std::string at(const std::string& text, std::uint64_t k) {
  return text + " (sequence " + std::to_string(k) + ")";
}

class QueueConnection final : public Connection {
 public:
  QueueConnection(std::unique_ptr<MessageChannel> channel, const DriveOptions& o,
                  std::uint32_t c, std::uint64_t end_seq,
                  const std::vector<std::uint8_t>& expected)
      : channel_(std::move(channel)), o_(o),
        flags_(static_cast<std::uint16_t>(kReplyAddress + c)), end_seq_(end_seq),
        expected_(expected), want_(kHeaderSize + o.response_size),
        reply_(std::max(want_, kEndAckSize) + channel_->max_message()) {
    // The request is stamped where the channel sends it from (sysv-mq: its msgbuf, no copy).
    request_ = channel_->send_buffer();
    if (request_ == nullptr) {
      own_.resize(kHeaderSize + o.request_size);
      request_ = own_.data();
    }
    encode_header(request_, FrameKind::request, 0, o.request_size, o.response_size, flags_);
    fill_base(o.seed, PayloadStream::request, request_ + kHeaderSize, o.request_size);
    std::memcpy(head_, request_ + kHeaderSize, std::min<std::size_t>(o.request_size, kStampBytes));
  }

  void prepare(std::uint64_t k) override {
    store_le64(request_ + kOffSequence, k);
    stamp_from(request_ + kHeaderSize, head_, o_.request_size, k);
  }

  void exchange(std::uint64_t) override {
    channel_->send(request_, kHeaderSize + o_.request_size);
    got_ = receive_frame(want_);
  }

  // Section 2's checks of a RESPONSE, then its payload (section 3).
  ConnError check(std::uint64_t k, Verdict& verdict) override {
    const std::uint8_t* reply = reply_.data();
    if (auto bad = check_reply_header(decode_header(reply), FrameKind::response, k,
                                      o_.response_size, o_.request_size)) {
      verdict.note(ErrorKind::protocol, at(*bad, k));
      return ConnError::protocol;
    }
    if (got_ != want_) {
      verdict.note(ErrorKind::protocol, at("a RESPONSE of " + std::to_string(got_) +
                                               " bytes in its messages, not " +
                                               std::to_string(want_), k));
      return ConnError::protocol;
    }
    const std::size_t off =
        first_difference(reply + kHeaderSize, expected_.data(), o_.response_size, k);
    if (off == kNoDifference) return ConnError::none;
    verdict.note(ErrorKind::payload_mismatch,
                 at("payload mismatch at offset " + std::to_string(off), k));
    return ConnError::payload_mismatch;
  }

  std::uint64_t finish() override {
    std::uint8_t end[kHeaderSize];
    encode_header(end, FrameKind::end, end_seq_, 0, 0, flags_);
    channel_->send(end, kHeaderSize);
    const std::size_t got = receive_frame(kEndAckSize);
    const std::uint8_t* ack = reply_.data();
    if (auto bad = check_reply_header(decode_header(ack), FrameKind::end_ack, end_seq_, 8, 0))
      throw PeerError(ErrorKind::protocol, "END_ACK: " + *bad);
    if (got != kEndAckSize)
      throw PeerError(ErrorKind::protocol,
                      "END_ACK: " + std::to_string(got) + " bytes in its messages, not 32");
    return load_le64(ack + kHeaderSize);
  }

 private:
  // Messages of the reply address until the frame is whole: `want` bytes, or fewer when its
  // header says the frame is shorter (a wrong answer is then checked, not waited for).
  std::size_t receive_frame(std::size_t want) {
    std::size_t got = 0, need = want;
    while (got < need) {
      got += channel_->receive(reply_.data() + got);
      if (got >= kHeaderSize)
        need = std::min<std::size_t>(want, kHeaderSize + load_le32(reply_.data() + kOffLength));
    }
    return got;
  }

  std::unique_ptr<MessageChannel> channel_;
  const DriveOptions& o_;
  const std::uint16_t flags_;  // the reply address
  const std::uint64_t end_seq_;
  const std::vector<std::uint8_t>& expected_;  // the response payload's base
  const std::size_t want_;                     // a whole RESPONSE
  std::vector<std::uint8_t> own_;              // the request, where the channel has no buffer
  std::uint8_t* request_ = nullptr;
  std::uint8_t head_[kStampBytes] = {};
  std::vector<std::uint8_t> reply_;  // room for a frame and one more message
  std::size_t got_ = 0;
};

}  // namespace

const Queue kSysvMqLoad{
    [](const DriveOptions& o, std::uint32_t c) {
      return open_sysv_mq_load(endpoint_as<KeyEndpoint>(o.endpoint), c);
    },
    create_sysv_mq_load};

const Queue kPosixMqLoad{
    [](const DriveOptions& o, std::uint32_t c) {
      return open_posix_mq_load(endpoint_as<PosixNameEndpoint>(o.endpoint), c, o.response_size,
                                o.io_timeout_ns);
    },
    create_posix_mq_load};

void drive_queue(const Queue& queue, const DriveOptions& o, Recorder& recorder) {
  // Requests of different connections interleave in the one queue: each must be one message.
  if (o.request_size > kQueueLoadMaxRequest)
    throw PeerError(ErrorKind::unsupported,
                    "load over " + o.mechanism_name + " sends each request as one message: "
                    "--request-size at most " + std::to_string(kQueueLoadMaxRequest) + ", not " +
                    std::to_string(o.request_size));
  Run run = plan_run(o);
  const std::vector<std::uint8_t> expected =
      make_base(o.seed, PayloadStream::response, o.response_size);
  const std::uint64_t total = run.offsets.size(), clients = o.clients;
  std::vector<std::unique_ptr<Connection>> conns;
  conns.reserve(clients);
  for (std::uint32_t c = 0; c < clients; ++c) {
    // END's sequence: the number after its last request (c + C·m, the largest below the
    // schedule's end); 0 when the schedule gives it none.
    const std::uint64_t end_seq = c < total ? c + (total - 1 - c) / clients * clients + 1 : 0;
    conns.push_back(std::make_unique<QueueConnection>(queue.open(o, c), o, c, end_seq, expected));
  }
  run_threaded(run, conns, o, recorder, "END");
}

}  // namespace ipclab::load
