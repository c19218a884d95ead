// Fuzz target: what a burst or load server model does with one accepted connection (PROTOCOL.md
// 11.4.1: one REQUEST, its RESPONSE; 11.5.1: REQUEST -> RESPONSE until END -> END_ACK or the end
// of stream): the blocking models' serve of burst/exchange.cpp, with its header checks
// (check_burst_header, check_load_header), reads, answers and payload checks. The bytes are
// written into a Unix socketpair whose far side is then shut; the server's side is non-blocking,
// so answers beyond the socket's buffer end the connection (io) instead of blocking the fuzzer.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

#include "burst/exchange.hpp"
#include "burst/serving.hpp"
#include "support.hpp"

namespace {

using namespace ipclab;

constexpr int kSocketBuffer = 4 << 20;

void set_buffers(int fd) {
  // Forced sizes need CAP_NET_ADMIN; without it the default (net.core.wmem_max) is kept, and a
  // long input ends earlier, deterministically all the same.
  if (::setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &kSocketBuffer, sizeof kSocketBuffer) != 0)
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kSocketBuffer, sizeof kSocketBuffer);
  ::fcntl(fd, F_SETFL, O_NONBLOCK);
}

// A connected pair: [0] the client, its bytes written and its sending side shut; [1] the server's.
void connect_pair(int sv[2], const std::vector<std::uint8_t>& bytes) {
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) std::abort();
  set_buffers(sv[0]);
  set_buffers(sv[1]);
  // What does not fit the buffer is cut off: the connection ends there, as if the client stopped.
  if (!bytes.empty()) (void)::send(sv[0], bytes.data(), bytes.size(), MSG_NOSIGNAL);
  ::shutdown(sv[0], SHUT_WR);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const std::uint8_t mode = in.byte();
  std::vector<std::uint8_t> bytes = in.rest();
  fuzz::tame_wanted(bytes, fuzz::kWantedLimit);

  // Seed 1, no fault: the exchange builds its answers with a RequestHandler per thread, made
  // once from the first server's options (a thread serves one server), so later inputs could not
  // change them anyway.
  const ServeOptions options;
  const burst::Exchange& exchange = (mode & 1) != 0 ? burst::kLoadExchange : burst::kBurstExchange;
  burst::Server server{
      .options = options, .sockets = burst::kTcpSockets, .exchange = exchange, .endpoint = {}};
  burst::ConnTimes times;

  int sv[2];
  connect_pair(sv, bytes);
  const burst::ConnError e = exchange.serve(server, sv[1], times);
  ::close(sv[0]);
  ::close(sv[1]);
  // The exchange ends a connection in one of these ways; the others belong to the client side.
  using burst::ConnError;
  if (e == ConnError::lost || e == ConnError::refused || e == ConnError::timeout ||
      e == ConnError::not_sent)
    std::abort();
  return 0;
}
