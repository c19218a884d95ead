// uds: Unix domain stream socket at a path, mode 0600, removed when the server exits. Also the
// path handling every Unix domain socket shares (uds, uds-dgram).
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "../error.hpp"
#include "../lifecycle.hpp"
#include "transport.hpp"

namespace ipclab {

namespace detail {

sockaddr_un unix_address(const std::string& path) {
  sockaddr_un sun{};
  sun.sun_family = AF_UNIX;
  if (path.size() >= sizeof sun.sun_path)
    throw PeerError(ErrorKind::io, "socket path too long (" + std::to_string(path.size()) +
                                       " bytes, at most " +
                                       std::to_string(sizeof sun.sun_path - 1) + "): " + path);
  std::memcpy(sun.sun_path, path.c_str(), path.size() + 1);
  return sun;
}

void bind_unix_path(int fd, const std::string& path) {
  const sockaddr_un sun = unix_address(path);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) throw PeerError(ErrorKind::io, "path exists: " + path);
  SignalBlock block;  // created and registered together, or neither
  const mode_t old_mask = ::umask(0077);
  const int rc = ::bind(fd, reinterpret_cast<const sockaddr*>(&sun), sizeof sun);
  const int err = errno;
  ::umask(old_mask);
  if (rc != 0) {
    if (err == EADDRINUSE) throw PeerError(ErrorKind::io, "path exists: " + path);
    throw_io_errno("bind " + path, err);
  }
  register_created_path(path);
  ::chmod(path.c_str(), 0600);  // in case the umask was not applied
}

void connect_unix(int fd, const std::string& path) { connect_unix(fd, unix_address(path), path); }

void connect_unix(int fd, const sockaddr_un& sun, const std::string& path) {
  int rc;
  do {
    rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&sun), sizeof sun);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) throw_io("connect " + path);
}

}  // namespace detail

namespace {

class UdsServer final : public StreamServer {
 public:
  UdsServer(const PathEndpoint& endpoint, int backlog) : path_(endpoint.path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw_io("socket");
    try {
      detail::bind_unix_path(fd_, path_);
      if (::listen(fd_, backlog) != 0) throw_io("listen");
    } catch (...) {
      ::close(fd_);
      throw;
    }
  }
  ~UdsServer() override { ::close(fd_); }

  std::string endpoint() const override { return path_; }

  bool next_client(Stream& out) override {
    for (;;) {
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0) {
        out = Stream(c, c);
        return true;
      }
      if (errno == EINTR || errno == ECONNABORTED) continue;
      throw_io("accept");
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace

std::unique_ptr<StreamServer> listen_uds(const PathEndpoint& endpoint, int backlog) {
  return std::make_unique<UdsServer>(endpoint, backlog);
}

Stream connect_uds(const PathEndpoint& endpoint) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw_io("socket");
  Stream s(fd, fd);
  detail::connect_unix(fd, endpoint.path);
  return s;
}

StreamConnector uds_connector(const PathEndpoint& endpoint) {
  StreamConnector c;
  c.prepare = [](std::uint64_t) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw_io("socket");
    return Stream(fd, fd);
  };
  c.connect = [sun = detail::unix_address(endpoint.path), path = endpoint.path](Stream& s) {
    detail::connect_unix(s.read_fd(), sun, path);
  };
  return c;
}

}  // namespace ipclab
