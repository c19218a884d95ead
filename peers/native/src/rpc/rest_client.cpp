#include "rpc/rest_client.hpp"

#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <charconv>
#include <cstring>

#include "error.hpp"

namespace ipclab::rpc {

namespace {

// An error answer's body is read only for the error's text.
constexpr std::size_t kErrorBodyLimit = 64 * 1024;
constexpr std::size_t kFirstRead = 16 * 1024;

[[noreturn]] void malformed(const std::string& why) {
  throw PeerError(ErrorKind::protocol, "rest: malformed HTTP answer: " + why);
}

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] + 32) : a[i];
    if (x != b[i]) return false;  // b is lower case
  }
  return true;
}

std::string_view trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

// "HTTP/1.x SSS[ reason]"; returns the status, sets http10 for HTTP/1.0.
int parse_status_line(std::string_view line, bool& http10) {
  if (line.size() < 12 || line.compare(0, 7, "HTTP/1.") != 0 || (line[7] != '0' && line[7] != '1') ||
      line[8] != ' ' || (line.size() > 12 && line[12] != ' '))
    malformed("bad status line '" + std::string(line.substr(0, 80)) + "'");
  int status = 0;
  for (std::size_t i = 9; i < 12; ++i) {
    if (line[i] < '0' || line[i] > '9') malformed("bad status code");
    status = status * 10 + (line[i] - '0');
  }
  if (status < 100 || status > 599) malformed("status " + std::to_string(status));
  if (status < 200) malformed("interim answer " + std::to_string(status) + " not expected");
  http10 = line[7] == '0';
  return status;
}

std::size_t parse_length(std::string_view v) {
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || v.front() == '+' ||
      v.front() == '-')
    malformed("bad Content-Length '" + std::string(v.substr(0, 40)) + "'");
  return n;
}

bool has_token(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    const auto comma = value.find(',');
    if (same_name(trim(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

timeval to_timeval(std::int64_t ns) {
  timeval tv{static_cast<time_t>(ns / 1'000'000'000),
             static_cast<suseconds_t>((ns % 1'000'000'000) / 1000)};
  if (tv.tv_sec == 0 && tv.tv_usec == 0) tv.tv_usec = 1;  // 0 would mean "no timeout"
  return tv;
}

void append_number(std::string& out, std::uint64_t n) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  out.append(digits, end);
}

}  // namespace

bool parse_answer_head(std::string_view bytes, AnswerHead& head) {
  const auto end = bytes.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (bytes.size() >= kMaxHead) malformed("head longer than 64 KiB");
    return false;
  }
  if (end + 4 > kMaxHead) malformed("head longer than 64 KiB");
  std::string_view rest = bytes.substr(0, end + 2);  // every line ends in CRLF
  auto eol = rest.find("\r\n");
  bool http10 = false;
  head = AnswerHead{};
  head.status = parse_status_line(rest.substr(0, eol), http10);
  head.head_bytes = end + 4;
  head.close = http10;
  bool has_length = false;
  for (rest.remove_prefix(eol + 2); !rest.empty(); rest.remove_prefix(eol + 2)) {
    eol = rest.find("\r\n");
    const std::string_view line = rest.substr(0, eol);
    const auto colon = line.find(':');
    if (colon == 0 || colon == std::string_view::npos || line[colon - 1] == ' ' ||
        line[colon - 1] == '\t' || line.front() == ' ' || line.front() == '\t')
      malformed("bad header line '" + std::string(line.substr(0, 80)) + "'");
    const std::string_view name = line.substr(0, colon), value = trim(line.substr(colon + 1));
    if (same_name(name, "content-length")) {
      const std::size_t n = parse_length(value);
      if (has_length && n != head.content_length) malformed("two different Content-Lengths");
      head.content_length = n;
      has_length = true;
    } else if (same_name(name, "transfer-encoding")) {
      malformed("Transfer-Encoding is not supported (the server must send Content-Length)");
    } else if (same_name(name, "connection")) {
      if (has_token(value, "close")) head.close = true;
      else if (has_token(value, "keep-alive")) head.close = false;
    }
  }
  if (head.status == 204 || head.status == 304) head.content_length = 0;  // never a body
  else if (!has_length) malformed("no Content-Length");
  return true;
}

HttpClient::HttpClient(const std::string& host, std::uint16_t port, bool nodelay,
                       bool keep_alive, std::int64_t timeout_ns)
    : nodelay_(nodelay), keep_alive_(keep_alive), timeout_ns_(timeout_ns), in_(kFirstRead) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) throw PeerError(ErrorKind::io, "rest: " + host + ": " + ::gai_strerror(rc));
  std::memcpy(&address_, found->ai_addr, found->ai_addrlen);
  address_size_ = found->ai_addrlen;
  const bool v6 = found->ai_family == AF_INET6;
  ::freeaddrinfo(found);
  host_header_ = (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
  head_out_.reserve(256);
}

HttpClient::~HttpClient() { disconnect(); }

void HttpClient::disconnect() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  in_used_ = 0;
}

namespace {

// A connect() a signal interrupted goes on by itself (connect(2)): wait until the socket is
// writable and take its outcome, as errno would have been (0: connected). Seen in the C++
// suite: "rest: connect to 127.0.0.1:…: Interrupted system call".
int finish_interrupted_connect(int fd, std::int64_t timeout_ns) {
  pollfd p{fd, POLLOUT, 0};
  const std::int64_t ms = timeout_ns / 1'000'000 + 1;
  int r;
  do {
    r = ::poll(&p, 1, ms > INT32_MAX ? INT32_MAX : static_cast<int>(ms));
  } while (r < 0 && errno == EINTR);
  if (r == 0) return ETIMEDOUT;
  if (r < 0) return errno;
  int so = 0;
  socklen_t len = sizeof so;
  return ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &len) != 0 ? errno : so;
}

}  // namespace

void HttpClient::connect() {
  disconnect();
  fd_ = ::socket(address_.ss_family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
  if (fd_ < 0) throw_io("rest: socket");
  const int on = nodelay_ ? 1 : 0;
  const timeval tv = to_timeval(timeout_ns_);
  // SO_SNDTIMEO bounds connect() too; SO_RCVTIMEO makes every receive a timed one (10.1).
  if (::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0 ||
      ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0 ||
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0)
    throw_io("rest: setsockopt");
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address_), address_size_) == 0) return;
  int err = errno;
  if (err == EINTR) err = finish_interrupted_connect(fd_, timeout_ns_);
  if (err == 0) return;
  disconnect();
  if (err == EINPROGRESS || err == ETIMEDOUT || err == EAGAIN)
    throw PeerError(ErrorKind::timeout, "rest: connect to " + host_header_ + " timed out");
  throw_io_errno("rest: connect to " + host_header_, err);
}

int HttpClient::exchange(std::string_view method, std::string_view target, std::string_view type,
                         const void* data, std::size_t size, std::size_t body_limit,
                         std::string& body) {
  if (fd_ < 0) connect();
  send_request(method, target, type, data, size);
  const AnswerHead head = read_head();
  read_body(head, head.status / 100 == 2 ? body_limit : kErrorBodyLimit, body);
  if (head.close || !keep_alive_) disconnect();
  return head.status;
}

// The head and the body in one sendmsg: one segment for a small request, and no second write
// for Nagle's algorithm to hold back (--nodelay off).
void HttpClient::send_request(std::string_view method, std::string_view target,
                              std::string_view type, const void* data, std::size_t size) {
  head_out_.clear();
  head_out_.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: ");
  head_out_.append(host_header_).append("\r\n");
  if (!type.empty()) head_out_.append("Content-Type: ").append(type).append("\r\n");
  head_out_.append("Content-Length: ");
  append_number(head_out_, size);
  head_out_.append(keep_alive_ ? "\r\n\r\n" : "\r\nConnection: close\r\n\r\n");
  iovec parts[2] = {{head_out_.data(), head_out_.size()}, {const_cast<void*>(data), size}};
  msghdr msg{};
  msg.msg_iov = parts;
  msg.msg_iovlen = size > 0 ? 2 : 1;
  while (msg.msg_iovlen > 0) {
    const ssize_t n = ::sendmsg(fd_, &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        throw PeerError(ErrorKind::timeout, "rest: sending the request timed out");
      throw_io("rest: send");
    }
    std::size_t sent = static_cast<std::size_t>(n);
    while (msg.msg_iovlen > 0 && sent >= msg.msg_iov->iov_len) {
      sent -= msg.msg_iov->iov_len;
      ++msg.msg_iov;
      --msg.msg_iovlen;
    }
    if (msg.msg_iovlen > 0) {
      msg.msg_iov->iov_base = static_cast<char*>(msg.msg_iov->iov_base) + sent;
      msg.msg_iov->iov_len -= sent;
    }
  }
}

AnswerHead HttpClient::read_head() {
  AnswerHead head;
  for (;;) {
    if (in_used_ > 0 && parse_answer_head(std::string_view(in_.data(), in_used_), head))
      return head;
    if (in_used_ == in_.size()) in_.resize(in_.size() * 2 > kMaxHead ? kMaxHead : in_.size() * 2);
    in_used_ += receive(in_.data() + in_used_, in_.size() - in_used_);
  }
}

void HttpClient::read_body(const AnswerHead& head, std::size_t body_limit, std::string& body) {
  const std::size_t n = head.content_length;
  if (n > body_limit) {
    disconnect();
    if (head.status / 100 == 2)
      throw PeerError(ErrorKind::payload_mismatch,
                      "payload mismatch: response of " + std::to_string(n) +
                          " bytes, expected at most " + std::to_string(body_limit));
    throw PeerError(ErrorKind::protocol, "rest: HTTP " + std::to_string(head.status) +
                                             " answer with a body of " + std::to_string(n) +
                                             " bytes");
  }
  const std::size_t have = in_used_ - head.head_bytes;
  if (have > n)  // one request at a time: nothing may follow the answer
    malformed(std::to_string(have - n) + " bytes after the body");
  body.resize(n);
  std::memcpy(body.data(), in_.data() + head.head_bytes, have);
  for (std::size_t got = have; got < n;) got += receive(body.data() + got, n - got);
  in_used_ = 0;
}

std::size_t HttpClient::receive(char* into, std::size_t room) {
  for (;;) {
    const ssize_t n = ::recv(fd_, into, room, 0);
    if (n > 0) return static_cast<std::size_t>(n);
    if (n == 0) {
      disconnect();
      throw PeerError(ErrorKind::io, "rest: the server closed the connection");
    }
    if (errno == EINTR) continue;
    const int err = errno;
    disconnect();
    if (err == EAGAIN || err == EWOULDBLOCK)
      throw PeerError(ErrorKind::timeout, "rest: no answer within the io timeout");
    throw_io_errno("rest: receive", err);
  }
}

}  // namespace ipclab::rpc
