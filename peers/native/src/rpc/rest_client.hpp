// The REST client's HTTP/1.1 (protocol/idl/rest.md): a lean keep-alive client on a raw socket.
// cpp-httplib's client cost the C++ peer ~15 µs per call over an established HTTP benchmarking
// client (wrk) against the same server: a poll() before every send and every read, a liveness
// poll() + MSG_PEEK before every request, the header and the body in two sends, and a dozen
// allocations (header maps, request and response objects). This client sends each request with
// one sendmsg and reads the answer with blocking recv calls into buffers it reuses.
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ipclab::rpc {

// What the head of an HTTP/1.1 answer says (status line and headers).
struct AnswerHead {
  int status = 0;
  std::size_t head_bytes = 0;      // the status line, the headers and the empty line
  std::size_t content_length = 0;  // 0 for an answer that has no body (204, 304)
  bool close = false;              // "Connection: close": the server closes after this answer
};

// Parses the head at the start of bytes. Returns false while the head is incomplete; throws
// PeerError (protocol) for a malformed head, one without Content-Length, a Transfer-Encoding,
// an interim (1xx) answer, or a head longer than kMaxHead.
bool parse_answer_head(std::string_view bytes, AnswerHead& head);
inline constexpr std::size_t kMaxHead = 64 * 1024;

// One HTTP/1.1 connection to host:port (a new one per request when keep_alive is false, each
// request then saying "Connection: close"). Every failure is a PeerError: timeout when a send or
// a receive waited longer than the timeout, io for refused, reset or closed connections,
// protocol for malformed answers, payload-mismatch for a body longer than the caller's limit.
class HttpClient {
 public:
  HttpClient(const std::string& host, std::uint16_t port, bool nodelay, bool keep_alive,
             std::int64_t timeout_ns);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends METHOD target with the body (Content-Type type unless empty) and reads the answer's
  // body into `body` (replaced; its storage is reused). A Content-Length above body_limit is
  // refused before anything is allocated for it. Returns the status.
  int exchange(std::string_view method, std::string_view target, std::string_view type,
               const void* data, std::size_t size, std::size_t body_limit, std::string& body);
  // Opens the connection now (before the warm-up); keep-alive only.
  void connect();

 private:
  void send_request(std::string_view method, std::string_view target, std::string_view type,
                    const void* data, std::size_t size);
  AnswerHead read_head();
  void read_body(const AnswerHead& head, std::size_t body_limit, std::string& body);
  std::size_t receive(char* into, std::size_t room);
  void disconnect() noexcept;

  sockaddr_storage address_{};
  socklen_t address_size_ = 0;
  std::string host_header_;
  bool nodelay_, keep_alive_;
  std::int64_t timeout_ns_;
  int fd_ = -1;
  std::string head_out_;       // the request head, rebuilt in place per request
  std::vector<char> in_;       // received bytes not yet consumed (the answer's head and more)
  std::size_t in_used_ = 0;
};

}  // namespace ipclab::rpc
