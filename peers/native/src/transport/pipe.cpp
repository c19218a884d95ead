// pipe: anonymous pipes inherited from the orchestrator, named "fd:R,W". One client, then exit.
#include "../error.hpp"
#include "transport.hpp"

namespace ipclab {

namespace {

Stream adopt(const FdEndpoint& fds) {
  detail::check_fd_open(fds.read_fd);
  detail::check_fd_open(fds.write_fd);
  return Stream(fds.read_fd, fds.write_fd);
}

class PipeServer final : public StreamServer {
 public:
  explicit PipeServer(const FdEndpoint& fds)
      : endpoint_("fd:" + std::to_string(fds.read_fd) + "," + std::to_string(fds.write_fd)),
        stream_(adopt(fds)) {}

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

std::unique_ptr<StreamServer> serve_pipe(const FdEndpoint& endpoint) {
  return std::make_unique<PipeServer>(endpoint);
}

Stream open_pipe_client(const FdEndpoint& endpoint) { return adopt(endpoint); }

}  // namespace ipclab
