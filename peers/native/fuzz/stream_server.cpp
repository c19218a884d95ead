// Fuzz target: the server of the stream transports (tcp, uds, pipe, fifo) fed an arbitrary byte
// stream: StreamConnectionHandler, the code `serve` runs on every connection (frames, a MARK's
// bare messages, the Responder's answers; PROTOCOL.md sections 2, 3, 11.1, 11.2). The bytes
// come from a memfd and the answers go to /dev/null, real descriptors read by the real Stream,
// at a few microseconds an input. The input is served as two connections to one handler (the
// corrupted count and a stream's state run across connections). Each connection must end
// closed or rejected: an io error cannot come from these descriptors, so it fails the input.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>

#include "server.hpp"
#include "support.hpp"

namespace {

using namespace ipclab;

// The bytes of one connection, from their start, and a sink for the answers.
Stream stream_of(const std::uint8_t* bytes, std::size_t n) {
  static const int memfd = ::memfd_create("ipclab-fuzz-stream", MFD_CLOEXEC);
  static const int sink = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (memfd < 0 || sink < 0 || ::ftruncate(memfd, 0) != 0) std::abort();
  if (n != 0 && ::pwrite(memfd, bytes, n, 0) != static_cast<ssize_t>(n)) std::abort();
  if (::lseek(memfd, 0, SEEK_SET) != 0) std::abort();
  return Stream(::dup(memfd), ::dup(sink));
}

// The first settings byte: the server's faults (section 6, 11.1) and its message limit (udp's).
ServerConfig config_of(std::uint8_t mode) {
  ServerConfig c;
  c.seed = 1 + (mode >> 5);
  c.flip_response_byte = (mode & 1) != 0;
  const int fault = (mode >> 1) & 3;
  if (fault == 1) c.stream_fault = StreamTally::Fault::drop_message;
  if (fault == 2) c.stream_fault = StreamTally::Fault::flip_byte;
  if ((mode & 8) != 0) c.max_message = kUdpMaxMessage;
  return c;
}

void serve_one(StreamConnectionHandler& handler, const std::uint8_t* bytes, std::size_t n) {
  Stream stream = stream_of(bytes, n);
  const ConnectionOutcome out = handler.serve(stream);
  if (out.end == ConnectionOutcome::End::io_error) std::abort();
  if (out.end == ConnectionOutcome::End::rejected && out.detail.empty()) std::abort();
  if (out.requests > n / kHeaderSize) std::abort();  // a request is 24 bytes at least
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const ServerConfig config = config_of(in.byte());
  const std::uint8_t split = in.byte();  // where the first connection ends, in 256ths
  std::vector<std::uint8_t> bytes = in.rest();
  fuzz::tame_wanted(bytes, fuzz::kWantedLimit);
  const std::size_t first = bytes.size() * split / 256;
  StreamConnectionHandler handler(config);
  serve_one(handler, bytes.data(), first);
  serve_one(handler, bytes.data() + first, bytes.size() - first);
  return 0;
}
