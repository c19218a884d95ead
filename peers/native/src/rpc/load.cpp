// load over an RPC framework (PROTOCOL.md 11.5.4): C sessions of the framework, each with a
// transport connection of its own, each driven by a thread of its own (a blocking stub call is
// all most frameworks offer; load/threaded.hpp runs the schedule): a request is one stub call,
// a connection ends with `finish`.
#include <cstring>
#include <vector>

#include "load/threaded.hpp"
#include "payload.hpp"
#include "rpc/rpc.hpp"

namespace ipclab::rpc {

namespace {

using load::ConnError;

// One session: its request buffer, stamped in place per call.
class SessionConnection final : public load::Connection {
 public:
  SessionConnection(std::unique_ptr<Session> session, const DriveOptions& o,
                    const std::vector<std::uint8_t>& expected)
      : s_(std::move(session)), o_(o), expected_(expected) {
    req_ = s_->prepare_call(o.request_size, o.response_size);
    fill_base(o.seed, PayloadStream::request, req_, o.request_size);
    s_->request_filled();
    if (o.request_size != 0)
      std::memcpy(head_, req_, o.request_size < kStampBytes ? o.request_size : kStampBytes);
  }

  void prepare(std::uint64_t k) override { stamp_from(req_, head_, o_.request_size, k); }
  void exchange(std::uint64_t k) override { s_->call(k); }
  std::uint64_t finish() override { return s_->finish(); }

  // The response's length and content (10.1); a mismatch leaves the session going.
  ConnError check(std::uint64_t k, load::Verdict& verdict) override {
    const auto [got, n] = s_->response();
    if (n != o_.response_size) {
      verdict.note(ErrorKind::payload_mismatch,
                   at("payload mismatch: response of " + std::to_string(n) + " bytes", k));
      return ConnError::payload_mismatch;
    }
    const std::size_t off = first_difference(got, expected_.data(), n, k);
    if (off == kNoDifference) return ConnError::none;
    verdict.note(ErrorKind::payload_mismatch,
                 at("payload mismatch at offset " + std::to_string(off), k));
    return ConnError::payload_mismatch;
  }

 private:
  static std::string at(const std::string& text, std::uint64_t k) {
    return text + " (sequence " + std::to_string(k) + ")";
  }

  std::unique_ptr<Session> s_;
  const DriveOptions& o_;
  const std::vector<std::uint8_t>& expected_;
  std::uint8_t* req_ = nullptr;
  std::uint8_t head_[kStampBytes] = {};
};

}  // namespace

void drive_load(std::unique_ptr<Session> (*open)(const DriveOptions&), const DriveOptions& o,
                Recorder& recorder) {
  if (o.corba_string)
    throw PeerError(ErrorKind::unsupported, "--corba-payload string is not part of load");
  load::Run run = load::plan_run(o);
  const std::vector<std::uint8_t> expected =
      make_base(o.seed, PayloadStream::response, o.response_size);
  std::vector<std::unique_ptr<load::Connection>> conns;
  conns.reserve(o.clients);
  for (std::size_t i = 0; i < o.clients; ++i)  // each connects
    conns.push_back(std::make_unique<SessionConnection>(open(o), o, expected));
  load::run_threaded(run, conns, o, recorder, "finish");
}

}  // namespace ipclab::rpc
