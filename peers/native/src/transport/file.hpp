// file and file-poll (PROTOCOL.md 4.2): one file per frame in a directory. The writer writes
// "<name>.tmp", closes it and renames it to "req" (direction 1) or "resp" (direction 2); the
// reader waits for the name (inotify IN_MOVED_TO, or a check every --poll-interval-us), opens
// it, removes it and reads it whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ipclab {

class FileChannel {
 public:
  struct Options {
    std::string directory;
    bool server = false;             // server: receives req, sends resp
    bool poll = false;               // file-poll
    std::uint64_t poll_interval_us = 2000;
    std::int64_t timeout_ns = 0;     // file-poll client: longest wait for one file; 0: none
  };
  // Server: refuses existing req/resp (io "path exists"), registers req, resp and the two .tmp
  // names for removal at exit. Client: removes a stale resp. Both (file): the inotify watch is
  // set up here, before READY / the first request.
  explicit FileChannel(const Options& options);
  ~FileChannel();
  FileChannel(const FileChannel&) = delete;
  FileChannel& operator=(const FileChannel&) = delete;

  // Writes the frame to the .tmp name and renames it into place (the client: without replacing
  // a req the server has not taken yet; it waits for that).
  void send(const std::uint8_t* p, std::size_t n);

  // Waits for the receiving name, opens and removes it. Returns its size; read it with read()
  // and then call done(). file client: the ReceiveWatchdog's EINTR ends the wait (timeout).
  std::size_t next();
  // Reads up to n bytes of the current file into p (all of them unless the file is shorter).
  std::size_t read(std::uint8_t* p, std::size_t n);
  void done() noexcept;

 private:
  void wait_for_event();
  void wait_until_taken();

  bool server_;
  bool poll_;
  std::uint64_t poll_interval_us_;
  std::int64_t timeout_ns_;
  std::string send_tmp_, send_name_, receive_path_;
  const char* receive_name_;
  std::string directory_;
  int inotify_ = -1;
  int deletions_ = -1;  // client: IN_DELETE watch, made when a req was not taken yet
  int current_ = -1;
  alignas(8) char events_[4096];
};

}  // namespace ipclab
