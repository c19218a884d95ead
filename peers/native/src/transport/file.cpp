#include "file.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "../error.hpp"
#include "../lifecycle.hpp"
#include "timeout.hpp"

namespace ipclab {

namespace {

std::string join(const std::string& dir, const char* name) {
  if (!dir.empty() && dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

}  // namespace

FileChannel::FileChannel(const Options& o)
    : server_(o.server),
      poll_(o.poll),
      poll_interval_us_(o.poll_interval_us),
      timeout_ns_(o.timeout_ns),
      send_tmp_(join(o.directory, o.server ? "resp.tmp" : "req.tmp")),
      send_name_(join(o.directory, o.server ? "resp" : "req")),
      receive_path_(join(o.directory, o.server ? "req" : "resp")),
      receive_name_(o.server ? "req" : "resp"),
      directory_(o.directory) {
  struct stat st {};
  if (::stat(o.directory.c_str(), &st) != 0) throw_io("stat " + o.directory);
  if (!S_ISDIR(st.st_mode)) throw PeerError(ErrorKind::io, "not a directory: " + o.directory);
  if (o.server) {
    for (const char* name : {"req", "resp"}) {
      const std::string path = join(o.directory, name);
      if (::lstat(path.c_str(), &st) == 0) throw PeerError(ErrorKind::io, "path exists: " + path);
    }
    for (const char* name : {"req", "resp", "req.tmp", "resp.tmp"})
      register_created_path(join(o.directory, name));
  } else {
    ::unlink(receive_path_.c_str());  // a stale answer to an earlier client
  }
  if (!poll_) {
    inotify_ = ::inotify_init1(IN_CLOEXEC);
    if (inotify_ < 0) throw_io("inotify_init1");
    if (::inotify_add_watch(inotify_, o.directory.c_str(), IN_MOVED_TO) < 0) {
      const int err = errno;
      ::close(inotify_);
      throw_io_errno("inotify_add_watch " + o.directory, err);
    }
  }
}

FileChannel::~FileChannel() {
  done();
  if (inotify_ >= 0) ::close(inotify_);
  if (deletions_ >= 0) ::close(deletions_);
}

void FileChannel::send(const std::uint8_t* p, std::size_t n) {
  int fd;
  do {
    fd = ::open(send_tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) throw_io("open " + send_tmp_);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw_io_errno("write " + send_tmp_, err);
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  if (::close(fd) != 0 && errno != EINTR) throw_io("close " + send_tmp_);
  if (server_) {
    if (::rename(send_tmp_.c_str(), send_name_.c_str()) != 0)
      throw_io("rename " + send_tmp_ + " to " + send_name_);
    return;
  }
  // The client never replaces a req the server has not taken yet (a stream sends DATA without
  // waiting for answers; in rr req is always gone by then).
  while (::renameat2(AT_FDCWD, send_tmp_.c_str(), AT_FDCWD, send_name_.c_str(),
                     RENAME_NOREPLACE) != 0) {
    if (errno == EINTR) continue;
    if (errno != EEXIST) throw_io("rename " + send_tmp_ + " to " + send_name_);
    wait_until_taken();
  }
}

// The previous req is still there: waits until the server removes it (file: an IN_DELETE watch
// of its own, made at the first need, so rr never sees those events; file-poll: a check every
// --poll-interval-us). Returns when it may be gone; the caller tries again.
void FileChannel::wait_until_taken() {
  if (poll_) {
    timespec ts{static_cast<time_t>(poll_interval_us_ / 1'000'000),
                static_cast<long>(poll_interval_us_ % 1'000'000) * 1000};
    ::nanosleep(&ts, nullptr);
    return;
  }
  if (deletions_ < 0) {
    deletions_ = ::inotify_init1(IN_CLOEXEC);
    if (deletions_ < 0) throw_io("inotify_init1");
    if (::inotify_add_watch(deletions_, directory_.c_str(), IN_DELETE) < 0)
      throw_io("inotify_add_watch " + directory_);
    return;  // made after the failed rename: try again before waiting
  }
  const ssize_t r = ::read(deletions_, events_, sizeof events_);
  if (r < 0 && errno != EINTR) throw_io("read (inotify)");
}

// Blocks until the watch reports a rename to the receiving name (or the event queue overflowed).
void FileChannel::wait_for_event() {
  for (;;) {
    const ssize_t r = ::read(inotify_, events_, sizeof events_);
    if (r < 0) {
      if (errno == EINTR) {
        if (receive_timed_out()) throw_timeout();
        continue;
      }
      throw_io("read (inotify)");
    }
    for (ssize_t off = 0; off < r;) {
      inotify_event ev;
      std::memcpy(&ev, events_ + off, sizeof ev);
      const char* name = events_ + off + sizeof ev;
      if ((ev.mask & IN_Q_OVERFLOW) != 0) return;
      if (ev.len > 0 && std::strcmp(name, receive_name_) == 0) return;
      off += static_cast<ssize_t>(sizeof ev + ev.len);
    }
  }
}

std::size_t FileChannel::next() {
  done();
  const std::int64_t deadline = timeout_ns_ > 0 ? monotonic_ns() + timeout_ns_ : 0;
  for (;;) {
    if (!poll_) wait_for_event();
    const int fd = ::open(receive_path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      current_ = fd;
      break;
    }
    if (errno != ENOENT && errno != EINTR) throw_io("open " + receive_path_);
    if (poll_) {
      if (deadline != 0 && monotonic_ns() >= deadline) throw_timeout();
      timespec ts{static_cast<time_t>(poll_interval_us_ / 1'000'000),
                  static_cast<long>(poll_interval_us_ % 1'000'000) * 1000};
      ::nanosleep(&ts, nullptr);  // EINTR: just check again
    }
  }
  if (::unlink(receive_path_.c_str()) != 0) throw_io("unlink " + receive_path_);
  struct stat st {};
  if (::fstat(current_, &st) != 0) throw_io("fstat " + receive_path_);
  return static_cast<std::size_t>(st.st_size);
}

std::size_t FileChannel::read(std::uint8_t* p, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(current_, p + got, n - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw_io("read " + receive_path_);
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

void FileChannel::done() noexcept {
  if (current_ >= 0) ::close(current_);
  current_ = -1;
}

}  // namespace ipclab
