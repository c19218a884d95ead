#include "iceoryx2_side.hpp"

#include <sys/stat.h>

#include "error.hpp"

namespace ipclab::iceoryx2 {

std::string library_version() { return ipclab_ix2_version(); }

std::string prefix_of(const std::string& posix_name) {
  return (posix_name.rfind('/', 0) == 0 ? posix_name.substr(1) : posix_name) + "-";
}

void fail(int code, const std::string& what) {
  const ErrorKind kind = code == IPCLAB_IX2_TIMEOUT ? ErrorKind::timeout
                         : code == IPCLAB_IX2_IO    ? ErrorKind::io
                                                    : ErrorKind::internal;
  throw PeerError(kind, "iceoryx2: " + what + ": " + ipclab_ix2_last_error());
}

Side::Side(const Options& o) {
  ::umask(077);
  const ipclab_ix2_options options{o.server ? 1 : 0,          o.spin ? 1 : 0,
                                   o.root.c_str(),            o.prefix.c_str(),
                                   o.initial_slice_len,       o.send_timeout_ns};
  if (const int rc = ipclab_ix2_open(&options, &side_); rc != IPCLAB_IX2_OK) {
    std::string what = "the server's services in " + o.root;
    if (!o.server) what += " (prefix " + o.prefix + ")";
    // An event's listener is a Unix datagram socket DIR/<prefix><u128 id>.event: its path must
    // fit in sun_path (108 bytes with the NUL), which a long DIR does not.
    constexpr std::size_t kSunPath = 108, kIdAndSuffix = 39 + 6;
    if (!o.spin && o.root.size() + 1 + o.prefix.size() + kIdAndSuffix >= kSunPath)
      what += " (an event's socket there may pass the 107 bytes a Unix socket's path can have: " +
              std::to_string(o.root.size()) + " bytes of directory)";
    fail(rc, what);
  }
}

}  // namespace ipclab::iceoryx2
