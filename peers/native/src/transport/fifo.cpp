// fifo: two named pipes in a directory, "req" (client to server) and "resp" (server to client).
// Both sides open req first, then resp, so neither waits for the other forever.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../error.hpp"
#include "../lifecycle.hpp"
#include "transport.hpp"

namespace ipclab {

namespace {

std::string join(const std::string& dir, const char* name) {
  if (!dir.empty() && dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

int open_retrying(const std::string& path, int flags) {
  for (;;) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd >= 0) return fd;
    if (errno != EINTR) throw_io("open " + path);
  }
}

void make_fifo(const std::string& path) {
  SignalBlock block;  // created and registered together, or neither
  if (::mkfifo(path.c_str(), 0600) != 0) {
    if (errno == EEXIST) throw PeerError(ErrorKind::io, "path exists: " + path);
    throw_io("mkfifo " + path);
  }
  register_created_path(path);
  ::chmod(path.c_str(), 0600);  // in case the umask took owner bits away
}

class FifoServer final : public StreamServer {
 public:
  explicit FifoServer(const DirEndpoint& dir)
      : directory_(dir.path), req_(join(dir.path, "req")), resp_(join(dir.path, "resp")) {
    struct stat st {};
    if (::lstat(req_.c_str(), &st) == 0) throw PeerError(ErrorKind::io, "path exists: " + req_);
    if (::lstat(resp_.c_str(), &st) == 0) throw PeerError(ErrorKind::io, "path exists: " + resp_);
    make_fifo(req_);
    make_fifo(resp_);
  }

  std::string endpoint() const override { return directory_; }

  bool next_client(Stream& out) override {
    const int rd = open_retrying(req_, O_RDONLY);
    int wr;
    try {
      wr = open_retrying(resp_, O_WRONLY);
    } catch (...) {
      ::close(rd);
      throw;
    }
    out = Stream(rd, wr);
    return true;
  }

 private:
  std::string directory_, req_, resp_;
};

}  // namespace

std::unique_ptr<StreamServer> create_fifos(const DirEndpoint& dir) {
  return std::make_unique<FifoServer>(dir);
}

Stream open_fifo_client(const DirEndpoint& dir) {
  const std::string& directory = dir.path;
  const int wr = open_retrying(join(directory, "req"), O_WRONLY);
  int rd;
  try {
    rd = open_retrying(join(directory, "resp"), O_RDONLY);
  } catch (...) {
    ::close(wr);
    throw;
  }
  return Stream(rd, wr);
}

}  // namespace ipclab
