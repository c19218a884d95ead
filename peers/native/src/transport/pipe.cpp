// pipe: anonymous pipes inherited from the orchestrator, named "fd:R,W". One client, then exit.
#include "../cli.hpp"
#include "../error.hpp"
#include "transport.hpp"

namespace ipclab {

namespace {

Stream adopt(const std::string& endpoint) {
  const FdPair fds = parse_fd_pair(endpoint);
  detail::check_fd_open(fds.read_fd);
  detail::check_fd_open(fds.write_fd);
  return Stream(fds.read_fd, fds.write_fd);
}

class PipeServer final : public StreamServer {
 public:
  explicit PipeServer(const std::string& endpoint) : endpoint_(endpoint), stream_(adopt(endpoint)) {}

  std::string endpoint() const override { return endpoint_; }
  bool single_client() const override { return true; }

  bool next_client(Stream& out) override {
    if (!stream_.is_open()) return false;
    out = std::move(stream_);
    return true;
  }

 private:
  std::string endpoint_;
  Stream stream_;
};

}  // namespace

std::unique_ptr<StreamServer> serve_pipe(const std::string& endpoint) {
  return std::make_unique<PipeServer>(endpoint);
}

Stream open_pipe_client(const std::string& endpoint) { return adopt(endpoint); }

}  // namespace ipclab
