// load over a message queue (PROTOCOL.md 11.5.5), by raw messages: each request message is
// checked as one frame (a rejected one is dropped, unanswered), answers go to the connection its
// flags name, and END_ACK counts the whole server's corrupted requests.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <mqueue.h>
#include <sys/msg.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "frame.hpp"
#include "load_queues.hpp"
#include "payload.hpp"
#include "support.hpp"

namespace ipclab::load {
namespace {

using namespace queue_test;

// Raw access to a queue load server's queues, as a client that sends any message would have:
// connection c's reply address is read one message at a time (posix-mq: the test makes it).
class RawQueues {
 public:
  RawQueues(const std::string& mechanism, const std::string& endpoint)
      : posix_(mechanism == "posix-mq") {
    if (!posix_) {
      const std::vector<int> keys = keys_of(endpoint);
      request_ = ::msgget(keys.at(0), 0);
      reply_ = ::msgget(keys.at(1), 0);
      return;
    }
    prefix_ = endpoint.substr(6);
    request_ = ::mq_open((prefix_ + "-1").c_str(), O_WRONLY);
  }
  ~RawQueues() {
    if (!posix_) return;
    ::mq_close(request_);
    for (const auto& [c, q] : replies_) {
      ::mq_close(q);
      ::mq_unlink((prefix_ + "-r" + std::to_string(c)).c_str());
    }
  }
  bool ok() const { return request_ >= 0 && (posix_ || reply_ >= 0); }

  void reply_address(std::uint32_t c) {
    if (!posix_) return;
    mq_attr attr{};
    attr.mq_maxmsg = 2;
    attr.mq_msgsize = 8192;
    replies_.emplace_back(c, ::mq_open((prefix_ + "-r" + std::to_string(c)).c_str(),
                                       O_RDONLY | O_CREAT | O_EXCL, 0600, &attr));
  }

  void send(const std::vector<std::uint8_t>& m) {
    if (posix_) {
      ASSERT_EQ(::mq_send(request_, reinterpret_cast<const char*>(m.data()), m.size(), 0), 0);
      return;
    }
    struct {
      long type;
      std::uint8_t text[8192];
    } msg{1, {}};
    std::memcpy(msg.text, m.data(), m.size());
    ASSERT_EQ(::msgsnd(request_, &msg, m.size(), 0), 0);
  }

  // One message of c's reply address within 5 s, or nothing.
  std::vector<std::uint8_t> receive(std::uint32_t c) {
    std::vector<std::uint8_t> m(8192);
    if (posix_) {
      timespec at;
      ::clock_gettime(CLOCK_REALTIME, &at);
      at.tv_sec += 5;
      for (const auto& [rc, q] : replies_) {
        if (rc != c) continue;
        const ssize_t n =
            ::mq_timedreceive(q, reinterpret_cast<char*>(m.data()), 8192, nullptr, &at);
        m.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
        return m;
      }
      return {};
    }
    struct {
      long type;
      std::uint8_t text[8192];
    } msg;
    for (int i = 0; i < 5000; ++i, ::usleep(1000)) {
      const ssize_t n = ::msgrcv(reply_, &msg, 8192, 2 + static_cast<long>(c), IPC_NOWAIT);
      if (n < 0) continue;
      m.assign(msg.text, msg.text + n);
      return m;
    }
    return {};
  }

 private:
  bool posix_;
  std::string prefix_;
  int request_ = -1, reply_ = -1;
  std::vector<std::pair<std::uint32_t, mqd_t>> replies_;
};

// A frame of `kind` from connection flags (a REQUEST's payload correct unless `corrupt`).
std::vector<std::uint8_t> frame(FrameKind kind, std::uint64_t seq, std::uint32_t length,
                                std::uint16_t flags, bool corrupt = false) {
  std::vector<std::uint8_t> f(kHeaderSize + length);
  encode_header(f.data(), kind, seq, length, kind == FrameKind::request ? 2 : 0, flags);
  fill_base(1, PayloadStream::request, f.data() + kHeaderSize, length);
  stamp_in_place(f.data() + kHeaderSize, length, seq);
  if (corrupt) f.back() ^= 1;
  return f;
}

class QueueRejects : public QueueLoad {};

// Each message is checked as one frame (11.5.5): a rejected one gets no answer and the next is
// served; END_ACK counts the whole server's corrupted requests (connection 1's, here).
TEST_P(QueueRejects, EachMessageIsCheckedAndEndCountsTheWholeServer) {
  test::Server server = queue_server(mechanism(), model());
  ASSERT_TRUE(server.ready()) << server.wait().err;
  {
    RawQueues q(mechanism(), server.endpoint());
    ASSERT_TRUE(q.ok());
    q.reply_address(0);
    q.reply_address(1);
    q.send(std::vector<std::uint8_t>(10, 0x49));                           // truncated header
    q.send(frame(FrameKind::request, 1, 4, 0));                            // bad flags: none
    q.send(frame(FrameKind::request, 2, 4, 0x8400));                       // bad flags: c 1024
    q.send(frame(FrameKind::request, 3, 4, kNoReply));                     // bad flags: short's
    q.send(frame(FrameKind::mark, 4, 16, 0x8000));                         // unexpected kind
    std::vector<std::uint8_t> longer = frame(FrameKind::request, 5, 4, 0x8000);
    longer.push_back(0);
    q.send(longer);                                                        // length mismatch
    q.send(frame(FrameKind::request, 7, 4, 0x8001, true));                 // corrupted
    const std::vector<std::uint8_t> r1 = q.receive(1);
    ASSERT_EQ(r1.size(), kHeaderSize + 2);
    EXPECT_EQ(decode_header(r1.data()).sequence, 7u);
    EXPECT_EQ(decode_header(r1.data()).flags, 0);
    q.send(frame(FrameKind::request, 8, 4, 0x8000));
    const std::vector<std::uint8_t> r0 = q.receive(0);
    ASSERT_EQ(r0.size(), kHeaderSize + 2);  // the first answer to connection 0
    EXPECT_EQ(decode_header(r0.data()).sequence, 8u);
    q.send(frame(FrameKind::end, 9, 0, 0x8000));
    const std::vector<std::uint8_t> a0 = q.receive(0);
    q.send(frame(FrameKind::end, 10, 0, 0x8001));
    const std::vector<std::uint8_t> a1 = q.receive(1);
    ASSERT_EQ(a0.size(), kEndAckSize);
    ASSERT_EQ(a1.size(), kEndAckSize);
    EXPECT_EQ(decode_header(a0.data()).kind, static_cast<std::uint8_t>(FrameKind::end_ack));
    EXPECT_EQ(decode_header(a1.data()).sequence, 10u);
    // The sum is the run's count; one worker in order gives it to the first END.
    EXPECT_EQ(load_le64(a0.data() + kHeaderSize) + load_le64(a1.data() + kHeaderSize), 1u);
    if (model() == "iterative") {
      EXPECT_EQ(load_le64(a0.data() + kHeaderSize), 1u);
    }
  }
  // A pool's worker that took a rejected message may still be on its way to saying so.
  if (model() == "thread-pool") ::usleep(200'000);
  server.close_stdin();
  const test::ChildResult end = server.wait();
  EXPECT_EQ(end.exit_code, 0);
  for (const char* why : {"truncated header", "bad flags", "unexpected kind", "length mismatch"})
    EXPECT_NE(end.err.find(std::string("rejected frame: ") + why), std::string::npos)
        << why << "\n" << end.err;
}

INSTANTIATE_TEST_SUITE_P(BothQueues, QueueRejects,
                         ::testing::Values("sysv-mq-iterative", "sysv-mq-thread-pool",
                                           "posix-mq-iterative", "posix-mq-thread-pool"),
                         test::param_name);

}  // namespace
}  // namespace ipclab::load
