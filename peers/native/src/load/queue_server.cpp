// load over a message queue (PROTOCOL.md 11.5.5), server side: `iterative` (one thread takes the
// next request off the shared queue and answers it) or `thread-pool` (W workers, started before
// READY, each doing the same on the same queue). There is no connection to accept or close: a
// message is a whole frame, its flags say whom to answer, and a rejected message is dropped.
#include <sched.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <string>
#include <thread>

#include "error.hpp"
#include "frame.hpp"
#include "lifecycle.hpp"
#include "load/queues.hpp"
#include "responder.hpp"
#include "result.hpp"

namespace ipclab::load {

namespace {

constexpr std::string_view kModels[] = {"iterative", "thread-pool"};
constexpr std::uint32_t kPoolWorkers = 4;

// What the workers share: the queues and the server's corrupted count, which END_ACK reports
// (and resets) whichever connection ends (11.5.5).
struct Shared {
  LoadQueues& queues;
  ServerConfig config;
  std::atomic<std::uint64_t> corrupted{0};
  // A connection whose request is being checked after its RESPONSE went out: its END waits for
  // that check, so the count its END_ACK (or a later one) reports includes it.
  std::array<std::atomic<bool>, kReplyAddresses> checking{};
};

// Why a request message is rejected (section 2's checks as 11.5.5 makes them), or nullptr.
const char* check_message(const std::uint8_t* m, std::size_t n, Header& h) noexcept {
  if (n < kHeaderSize) return "truncated header";  // as udp's datagrams
  h = decode_header(m);
  if (const char* why = check_queue_request_header(h)) return why;
  if (n != kHeaderSize + h.length) return "length mismatch";
  return nullptr;
}

class Worker {
 public:
  explicit Worker(Shared& shared)
      : s_(shared), port_(shared.queues.worker()), answer_(shared.config) {}

  [[noreturn]] void run() {
    for (;;) serve_one();
  }

 private:
  void serve_one() {
    std::size_t n = 0;
    const std::uint8_t* m = port_->receive(n);
    Header h{};
    if (const char* why = check_message(m, n, h)) {
      print_line(std::string("rejected frame: ") + why);
      return;
    }
    const std::uint32_t c = h.flags - kReplyAddress;
    if (h.kind == static_cast<std::uint8_t>(FrameKind::end)) return end(c, h.sequence);
    s_.checking[c].store(true);
    port_->reply(c, answer_.response(h.sequence, h.length, h.wanted), kHeaderSize + h.wanted);
    answer_.after_send();
    if (!answer_.request_ok(m + kHeaderSize, h.length, h.sequence)) ++s_.corrupted;
    s_.checking[c].store(false, std::memory_order_release);
  }

  void end(std::uint32_t c, std::uint64_t sequence) {
    while (s_.checking[c].load(std::memory_order_acquire)) ::sched_yield();  // a few µs at most
    std::uint8_t ack[kEndAckSize];
    RequestHandler::end_ack(ack, sequence, s_.corrupted.exchange(0));
    port_->reply(c, ack, kEndAckSize);
    port_->ended(c);
  }

  Shared& s_;
  std::unique_ptr<LoadQueueWorker> port_;
  RequestHandler answer_;
};

// A worker that fails (its queue removed under it) ends the server, as a failed receive ends
// any server; unless the server is stopping: then the removal was its own, and the thread
// stopping it exits 0.
[[noreturn]] void work(Shared& shared) {
  try {
    Worker(shared).run();
  } catch (const PeerError& e) {
    while (stopping()) ::pause();
    print_line(std::string(kind_name(e.kind())) + ": " + e.what());
    exit_process(exit_code(e.kind()));
  } catch (const std::exception& e) {
    print_line(std::string("internal: ") + e.what());
    exit_process(exit_code(ErrorKind::internal));
  }
}

// What this server cannot be (11.5.5), or an empty string.
std::string unsupported_reason(const ServeOptions& o) {
  if (!o.load) return "burst (11.4) is not served over " + o.mechanism_name;
  if (o.server_model != kModels[0] && o.server_model != kModels[1])
    return "server model '" + o.server_model + "' is not implemented for load over " +
           o.mechanism_name + " (iterative, thread-pool)";
  if (o.fault != Fault::none) return "--fault is not taken by a message queue's load server";
  if (o.backlog_given) return "--backlog: a message queue has no listen backlog";
  if (o.nodelay_given) return "--nodelay: a message queue has no TCP socket";
  return {};
}

}  // namespace

std::span<const std::string_view> queue_models() noexcept { return kModels; }

int serve_queue(const Queue& queue, const ServeOptions& o) {
  if (const std::string why = unsupported_reason(o); !why.empty()) {
    print_line("unsupported: " + why);
    return exit_code(ErrorKind::unsupported);
  }
  install_server_lifecycle();  // SIGTERM, SIGINT, stdin's end: remove the queues, exit 0
  try {
    // Both live as long as the process: detached workers use them until it ends (_exit).
    LoadQueues& queues = *queue.create().release();
    static Shared shared{queues, ServerConfig{o.seed, false, StreamTally::Fault::none}};
    const bool pool = o.server_model == "thread-pool";
    const std::uint32_t workers = o.workers != 0 ? o.workers : kPoolWorkers;
    for (std::uint32_t i = 0; pool && i < workers; ++i)  // a pool is ready before READY
      std::thread([] { work(shared); }).detach();
    announce_ready(queues.endpoint(), o.mechanism_name,
                   ", \"server_model\": " + json_string(o.server_model));
    if (!pool) work(shared);
    for (;;) ::pause();  // the workers serve; the lifecycle ends the process
  } catch (const PeerError& e) {
    print_line(std::string(kind_name(e.kind())) + ": " + e.what());
    exit_process(exit_code(e.kind()));
  }
}

}  // namespace ipclab::load
