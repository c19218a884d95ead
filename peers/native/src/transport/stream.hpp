// A byte stream over a pair of file descriptors (tcp and uds: one socket for both; pipe, fifo:
// two). The hot-path calls are inline and map to exactly one read(2)/write(2) each.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "../error.hpp"
#include "timeout.hpp"

namespace ipclab {

class Stream {
 public:
  Stream() noexcept = default;
  Stream(int read_fd, int write_fd) noexcept : rfd_(read_fd), wfd_(write_fd) {}
  Stream(Stream&& o) noexcept : rfd_(o.rfd_), wfd_(o.wfd_) { o.rfd_ = o.wfd_ = -1; }
  Stream& operator=(Stream&& o) noexcept {
    if (this != &o) {
      close();
      rfd_ = o.rfd_;
      wfd_ = o.wfd_;
      o.rfd_ = o.wfd_ = -1;
    }
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { close(); }

  int read_fd() const noexcept { return rfd_; }
  int write_fd() const noexcept { return wfd_; }
  bool is_open() const noexcept { return rfd_ >= 0; }

  // One read call: up to n bytes into p. Returns the count, 0 at end of stream. A receive that
  // waited past --io-timeout (the watchdog's signal: EINTR with the flag set) throws timeout.
  std::size_t read_some(std::uint8_t* p, std::size_t n) {
    for (;;) {
      const ssize_t r = ::read(rfd_, p, n);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno == EINTR) {
        if (receive_timed_out()) throw_timeout();
        continue;
      }
      throw_io("read");
    }
  }

  // Writes all n bytes, in one call unless the kernel takes fewer.
  void write_all(const std::uint8_t* p, std::size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(wfd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        throw_io("write");
      }
      p += w;
      n -= static_cast<std::size_t>(w);
    }
  }

  void close() noexcept {
    if (wfd_ >= 0 && wfd_ != rfd_) ::close(wfd_);
    if (rfd_ >= 0) ::close(rfd_);
    rfd_ = wfd_ = -1;
  }

 private:
  int rfd_ = -1;
  int wfd_ = -1;
};

}  // namespace ipclab
