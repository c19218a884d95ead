// The iceoryx2 client (PROTOCOL.md 4.12): a link of links.hpp over one Side, so rr and stream
// (link_patterns.hpp) run over it unchanged: every frame and every stream message is one sample
// on ipclab/requests, written into the loaned sample; an answer is the next sample on
// ipclab/responses, within --io-timeout. rr's RESPONSE is checked where it lies
// (receive_in_place) and released after; the control frames' answers are copied out. With
// --sample-write header (rr) only each frame's header is written into its sample, and the
// RESPONSE's header and size alone are checked (link_patterns.hpp). And the hooks main() installs.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "error.hpp"
#include "frame.hpp"
#include "iceoryx2_hooks.hpp"
#include "iceoryx2_side.hpp"
#include "options.hpp"
#include "patterns.hpp"

namespace ipclab::iceoryx2 {

void serve(const ServeOptions& o);  // iceoryx2_server.cpp

namespace {

Side::Options client_options(const PosixDirEndpoint& e, const DriveOptions& o) {
  Side::Options s;
  s.spin = o.mechanism_name == "iceoryx2-spin";
  s.root = e.dir;
  s.prefix = prefix_of(e.prefix);
  // The first pool holds the largest sample this client sends: its REQUEST, a MARK, a message.
  s.initial_slice_len = std::max<std::size_t>({kHeaderSize + o.request_size, kMarkSize,
                                              static_cast<std::size_t>(o.message_size)});
  s.send_timeout_ns = o.io_timeout_ns > 0 ? o.io_timeout_ns : -1;
  return s;
}

class Iceoryx2Link {
 public:
  Iceoryx2Link(const PosixDirEndpoint& endpoint, const DriveOptions& o)
      : side_(client_options(endpoint, o)),
        timeout_ns_(o.io_timeout_ns > 0 ? o.io_timeout_ns : -1),
        written_(o.sample_header_only ? kHeaderSize : SIZE_MAX) {}

  // The link interface of links.hpp.
  static std::size_t capacity_for(std::size_t frame) { return frame; }
  // A frame: all its bytes written into the sample, or (--sample-write header, rr) its header.
  void send(const std::uint8_t* p, std::size_t n) { side_.send(p, n, std::min(n, written_)); }
  std::size_t receive(std::uint8_t* buf, std::size_t capacity, std::size_t /*expected*/) {
    const std::span<const std::uint8_t> sample = next();
    std::memcpy(buf, sample.data(), std::min(sample.size(), capacity));
    side_.release();
    return sample.size();
  }
  // rr's RESPONSE where it lies, until release_received().
  std::span<const std::uint8_t> receive_in_place(std::size_t /*expected*/) { return next(); }
  void release_received() noexcept { side_.release(); }
  // A stream message (11.1): one sample, waiting for room in a full buffer (RetryUntilDelivered).
  void send_message(const std::uint8_t* p, std::size_t n, std::uint64_t /*sequence*/) {
    side_.send(p, n, n);
  }

 private:
  std::span<const std::uint8_t> next() {
    std::span<const std::uint8_t> sample;
    if (!side_.receive(timeout_ns_, sample))
      throw PeerError(ErrorKind::timeout, "nothing on ipclab/responses within --io-timeout");
    return sample;
  }

  Side side_;
  const std::int64_t timeout_ns_;  // negative: none (--io-timeout 0)
  const std::size_t written_;      // of each frame: every byte, or the header
};

std::string library() { return library_version(); }

}  // namespace

void install() {
  install_iceoryx2_hooks({drive_over<Iceoryx2Link, PosixDirEndpoint>, serve, library});
}

}  // namespace ipclab::iceoryx2
