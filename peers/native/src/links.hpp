// The client's links: one per way a frame travels (PROTOCOL.md section 4). Each has the same
// three members, which the patterns (patterns.hpp) are written against:
//   capacity_for(frame)       the receive buffer a reply of `frame` bytes needs
//   send(p, n)                sends one whole frame
//   receive(buf, cap, expect) receives one frame of `expect` bytes (stopping early only when the
//                             header announces another length); returns the bytes received
// Links that can open a new connection per round trip (pattern short, 11.2) also have
//   close()                   closes the connection (or the queues)
//   open(i)                   opens connection i (connects it; the queues: opens them)
// and stream links also prepare(i): connection i's socket (tcp: bound to its source address),
// made before the sample's clock.
// and the datagram link says whether datagrams may be lost (udp: END is resent, 11.1).
// A link whose replies lie in memory of the library's (iceoryx2, 4.12) may also have
//   receive_in_place(expect)  the next reply's bytes where they lie (rr checks them there)
//   release_received()        gives them back (InPlaceReplies, link_patterns.hpp)
// The hot-path calls are inline: one send and one receive system call per frame for streams
// and datagrams.
#pragma once

#include <poll.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "error.hpp"
#include "frame.hpp"
#include "transport/file.hpp"
#include "transport/message.hpp"
#include "transport/stream.hpp"
#include "transport/transport.hpp"

namespace ipclab {

// Stream mechanisms: send = one write call for the whole frame; receive = read calls into a
// buffer sized for the whole expected frame, stopping early only if the header announces a
// different length (checked outside the timed region).
class StreamLink {
 public:
  // reconnect: how to open connection i of pattern short (empty: the mechanism has none).
  explicit StreamLink(Stream s, StreamConnector reconnect = {})
      : stream_(std::move(s)), reconnect_(std::move(reconnect)) {}
  static std::size_t capacity_for(std::size_t frame) { return frame; }
  void close() noexcept { stream_.close(); }
  void prepare(std::uint64_t connection) {
    if (!reconnect_) throw PeerError(ErrorKind::unsupported, "this mechanism cannot reconnect");
    next_ = reconnect_.prepare(connection);
  }
  void open(std::uint64_t /*connection: prepared*/) {
    reconnect_.connect(next_);
    stream_ = std::move(next_);
  }
  void send(const std::uint8_t* p, std::size_t n) { stream_.write_all(p, n); }
  std::size_t receive(std::uint8_t* buf, std::size_t /*capacity*/, std::size_t expected) {
    std::size_t got = 0;
    bool header_seen = false;
    while (got < expected) {
      const std::size_t n = stream_.read_some(buf + got, expected - got);
      if (n == 0)
        throw PeerError(ErrorKind::io, "end of stream after " + std::to_string(got) + " of " +
                                           std::to_string(expected) + " frame bytes");
      got += n;
      if (!header_seen && got >= kHeaderSize) {
        header_seen = true;
        if (kHeaderSize + load_le32(buf + kOffLength) != expected) return got;
      }
    }
    return got;
  }

 private:
  Stream stream_;
  StreamConnector reconnect_;
  Stream next_;  // the prepared, not yet connected socket
};

// udp, uds-dgram: one datagram per frame on a connected socket. receive returns the datagram's
// real size (MSG_TRUNC), so one longer than the buffer is a size mismatch, never cut silently.
class DatagramLink {
 public:
  explicit DatagramLink(DatagramSocket s) : socket_(std::move(s)) {
    int domain = AF_UNIX;
    socklen_t len = sizeof domain;
    ::getsockopt(socket_.fd(), SOL_SOCKET, SO_DOMAIN, &domain, &len);
    lossy_ = domain != AF_UNIX;
  }
  std::size_t capacity_for(std::size_t) const { return socket_.receive_buffer(); }
  // udp may lose datagrams (uds-dgram never does).
  bool lossy() const noexcept { return lossy_; }
  // Whether a datagram arrives within ns (false: not yet); a receive overdue past --io-timeout
  // throws timeout.
  bool readable_within(std::int64_t ns) {
    pollfd p{socket_.fd(), POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(ns / 1'000'000));
    if (r > 0) return true;
    if (r == 0 || errno == EINTR) {
      if (receive_timed_out()) throw_timeout();
      return false;
    }
    throw_io("poll");
  }
  void send(const std::uint8_t* p, std::size_t n) {
    for (;;) {
      if (::send(socket_.fd(), p, n, 0) >= 0) return;
      if (errno != EINTR) throw_io("send of a " + std::to_string(n) + "-byte datagram");
    }
  }
  std::size_t receive(std::uint8_t* buf, std::size_t capacity, std::size_t /*expected*/) {
    for (;;) {
      const ssize_t r = ::recv(socket_.fd(), buf, capacity, MSG_TRUNC);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno == EINTR) {
        if (receive_timed_out()) throw_timeout();
        continue;
      }
      throw_io("recv");
    }
  }

 private:
  DatagramSocket socket_;
  bool lossy_ = false;
};

// Message channels (section 4.1): the frame cut into messages; the reply reassembled into a
// buffer with room for one message more than the expected frame, so every message is received
// in place.
class MessageLink {
 public:
  explicit MessageLink(std::unique_ptr<MessageChannel> channel)
      : channel_(std::move(channel)), messages_(*channel_) {}
  std::size_t capacity_for(std::size_t frame) const { return frame + messages_.max_message(); }
  void send(const std::uint8_t* p, std::size_t n) { messages_.send_frame(p, n); }
  // Where a stream message of n bytes can be kept so that send() takes it without a copy (one
  // channel message, on a channel that offers it), or nullptr.
  std::uint8_t* message_buffer(std::size_t n) {
    return n <= messages_.max_message() ? channel_->send_buffer() : nullptr;
  }
  // short (11.2): the queues opened per round trip (msgget; mq_open and mq_close).
  void close() { channel_->close(); }
  void open(std::uint64_t) { channel_->reopen(); }
  std::size_t receive(std::uint8_t* buf, std::size_t /*capacity*/, std::size_t expected) {
    const std::size_t got = messages_.receive_until(buf, 0, kHeaderSize);
    if (kHeaderSize + load_le32(buf + kOffLength) != expected) return got;  // checked later
    return messages_.receive_until(buf, got, expected);
  }

 private:
  std::unique_ptr<MessageChannel> channel_;
  MessageStream messages_;
};

// file, file-poll (section 4.2): one file per frame. receive returns the file's size (reading
// at most capacity bytes of it), so a wrong size shows as a frame size mismatch.
class FileLink {
 public:
  explicit FileLink(const FileChannel::Options& o) : files_(o) {}
  static std::size_t capacity_for(std::size_t frame) { return frame; }
  void send(const std::uint8_t* p, std::size_t n) { files_.send(p, n); }
  std::size_t receive(std::uint8_t* buf, std::size_t capacity, std::size_t /*expected*/) {
    const std::size_t size = files_.next();
    files_.read(buf, size < capacity ? size : capacity);
    files_.done();
    return size;
  }

 private:
  FileChannel files_;
};

}  // namespace ipclab
