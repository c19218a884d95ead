// The stream's window of the servers that keep whatever is pushed or drop what a slow reader
// cannot take (Redis 4.10, NATS 4.11): at most W(S) = min(1000, max(1, 64 MiB / S)) messages of
// S bytes sent and not yet taken, and a credit per K(S) = ceil(W / 2) messages taken. One
// definition for both clients and both responders, so the two sides never count apart.
#pragma once

#include <cstdint>

namespace ipclab {

constexpr std::uint64_t stream_window(std::uint64_t size) noexcept {
  constexpr std::uint64_t budget = 64ull << 20, most = 1000;
  if (size == 0) return most;
  const std::uint64_t w = budget / size;
  return w < 1 ? 1 : (w > most ? most : w);
}
constexpr std::uint64_t credit_every(std::uint64_t window) noexcept { return (window + 1) / 2; }

// A client's count of its stream messages of S bytes since the MARK_ACK that opened the window:
// the first W(S) go at once, then one credit is taken before each K(S)-th (the responder sends
// one per K(S) it took).
class CreditedSender {
 public:
  explicit CreditedSender(std::uint64_t message_size) noexcept
      : window_(stream_window(message_size)), every_(credit_every(window_)) {}
  // A MARK_ACK came: the stream's messages count from here.
  void open() noexcept { sent_ = 0; }
  // Counts the next message; true where a credit must be taken before it goes.
  bool next_needs_credit() noexcept {
    const bool wait = sent_ >= window_ && (sent_ - window_) % every_ == 0;
    ++sent_;
    return wait;
  }

 private:
  std::uint64_t window_, every_;
  std::uint64_t sent_ = 0;
};

}  // namespace ipclab
