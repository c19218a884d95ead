// The REST client's own HTTP/1.1 (rpc/rest_client.hpp): the answer-head parser on its own, and
// the client against a scripted server on a loopback socket (what it sends, what it accepts).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>

#include "error.hpp"
#include "rpc/rest_client.hpp"

namespace ipclab::rpc {
namespace {

AnswerHead parsed(const std::string& text) {
  AnswerHead head;
  EXPECT_TRUE(parse_answer_head(text, head)) << text;
  return head;
}

// The kind of the PeerError that f throws (internal if it throws none).
ErrorKind kind_of(const std::function<void()>& f, std::string* what = nullptr) {
  try {
    f();
  } catch (const PeerError& e) {
    if (what != nullptr) *what = e.what();
    return e.kind();
  }
  return ErrorKind::internal;
}

TEST(RestClientHead, ParsesStatusLengthAndConnection) {
  const std::string text =
      "HTTP/1.1 200 OK\r\ncontent-LENGTH:  16 \r\nContent-Type: application/octet-stream\r\n\r\n"
      "0123456789abcdef";
  const AnswerHead head = parsed(text);
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.content_length, 16u);
  EXPECT_EQ(head.head_bytes, text.size() - 16);
  EXPECT_FALSE(head.close);
  EXPECT_TRUE(parsed("HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n").close);
  // HTTP/1.0 closes unless it says keep-alive.
  EXPECT_TRUE(parsed("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").close);
  EXPECT_FALSE(
      parsed("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n").close);
  // 204 has no body, with or without a Content-Length; a reason phrase is optional.
  EXPECT_EQ(parsed("HTTP/1.1 204\r\n\r\n").content_length, 0u);
  EXPECT_EQ(parsed("HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n").content_length, 0u);
  EXPECT_EQ(parsed("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\n").status, 404);
  EXPECT_EQ(parsed("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n")
                .content_length,
            3u);
}

TEST(RestClientHead, IncompleteHeadAsksForMore) {
  AnswerHead head;
  EXPECT_FALSE(parse_answer_head("", head));
  EXPECT_FALSE(parse_answer_head("HTTP/1.1 200 OK\r\nContent-Length: 16\r\n", head));
  EXPECT_FALSE(parse_answer_head("HTTP/1.1 200 OK\r\nContent-Length: 16\r\n\r", head));
}

TEST(RestClientHead, MalformedHeadsAreProtocolErrors) {
  for (const std::string text : {
           "HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n",
           "HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n",
           "HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n",
           "HTTP/1.1 abc OK\r\nContent-Length: 0\r\n\r\n",
           "HTTP/1.1 100 Continue\r\n\r\n",
           "HTTP/1.1 700 What\r\nContent-Length: 0\r\n\r\n",
           "HTTP/1.1 200 OK\r\n\r\n",  // no Content-Length
           "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length 3\r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length : 3\r\n\r\n",
           "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n folded\r\n\r\n",
       }) {
    SCOPED_TRACE(text);
    AnswerHead head;
    std::string what;
    EXPECT_EQ(kind_of([&] { parse_answer_head(text, head); }, &what), ErrorKind::protocol);
    EXPECT_NE(what.find("rest: malformed HTTP answer: "), std::string::npos) << what;
  }
  AnswerHead head;
  const std::string endless = "HTTP/1.1 200 OK\r\nX: " + std::string(kMaxHead, 'x');
  EXPECT_EQ(kind_of([&] { parse_answer_head(endless, head); }), ErrorKind::protocol);
}

// A server on 127.0.0.1 that accepts one connection, reads one request head (and the body its
// Content-Length announces) into `request`, then writes each of `answers` in its own send, and
// closes the connection then (close_after) or once the client has closed it.
class Scripted {
 public:
  explicit Scripted(std::vector<std::string> answers, bool read_request = true,
                    bool close_after = false) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    EXPECT_EQ(::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(listener_, 4), 0);
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
    thread_ = std::thread([this, answers = std::move(answers), read_request, close_after] {
      const int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      if (read_request) read_one(fd);
      for (const std::string& a : answers) ::send(fd, a.data(), a.size(), MSG_NOSIGNAL);
      char sink[256];
      while (!close_after && ::recv(fd, sink, sizeof sink, 0) > 0) {
      }
      ::close(fd);
    });
  }
  ~Scripted() {
    ::shutdown(listener_, SHUT_RDWR);
    thread_.join();
    ::close(listener_);
  }
  std::uint16_t port = 0;
  std::string request;

 private:
  void read_one(int fd) {
    char buf[4096];
    for (;;) {
      const auto end = request.find("\r\n\r\n");
      if (end != std::string::npos) {
        const auto at = request.find("Content-Length: ");
        const std::size_t body = at == std::string::npos ? 0 : std::stoul(request.substr(at + 16));
        if (request.size() >= end + 4 + body) return;
      }
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return;
      request.append(buf, static_cast<std::size_t>(n));
    }
  }
  int listener_ = -1;
  std::thread thread_;
};

constexpr std::int64_t kSecond = 1'000'000'000;

// The kind of error a GET of `wanted` body bytes ends in when a scripted server answers `answer`.
ErrorKind get_fails(const std::string& answer, std::uint64_t wanted, std::string* what = nullptr,
                    bool close_after = false) {
  Scripted server({answer}, true, close_after);
  HttpClient client("127.0.0.1", server.port, true, true, 5 * kSecond);
  std::string body;
  return kind_of([&] { client.exchange("GET", "/", "", nullptr, 0, wanted, body); }, what);
}

// The status of one bodiless POST to `path` that a scripted server answers with `answer`; `body`
// gets the answer's body, `request` (if given) what the server read.
int post(const std::string& answer, const char* path, std::uint64_t wanted, std::string& body,
         bool keep_alive = true, std::string* request = nullptr) {
  Scripted server({answer});
  HttpClient client("127.0.0.1", server.port, keep_alive, keep_alive, 5 * kSecond);
  const int status = client.exchange("POST", path, "", nullptr, 0, wanted, body);
  if (request != nullptr) *request = server.request;
  return status;
}

TEST(RestClient, SendsOneRequestAndReadsAnAnswerInPieces) {
  Scripted server({"HTTP/1.1 200 OK\r\nContent-Le", "ngth: 5\r\n\r\nhe", "llo"});
  HttpClient client("127.0.0.1", server.port, true, true, 5 * kSecond);
  std::string body = "old contents";
  EXPECT_EQ(client.exchange("POST", "/call/7?wanted=5", "application/octet-stream", "abc", 3, 5,
                            body),
            200);
  EXPECT_EQ(body, "hello");
  EXPECT_EQ(server.request, "POST /call/7?wanted=5 HTTP/1.1\r\nHost: 127.0.0.1:" +
                                std::to_string(server.port) +
                                "\r\nContent-Type: application/octet-stream\r\n"
                                "Content-Length: 3\r\n\r\nabc");
}

TEST(RestClient, ShortCallsSayConnectionClose) {
  std::string body, request;
  EXPECT_EQ(post("HTTP/1.1 204 No Content\r\n\r\n", "/put/1", 0, body, false, &request), 204);
  EXPECT_EQ(body, "");
  EXPECT_NE(request.find("\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
            std::string::npos)
      << request;
}

TEST(RestClient, ErrorAnswersKeepTheirTextAndLongBodiesAreRefused) {
  {
    std::string body;
    EXPECT_EQ(post("HTTP/1.1 400 Bad Request\r\nContent-Length: 9\r\n\r\nbad seq\r\n",
                   "/call/x?wanted=1", 1, body),
              400);
    EXPECT_EQ(body, "bad seq\r\n");
  }
  {
    // 2^60 bytes announced for 16 wanted: refused before anything is allocated or read.
    Scripted server({"HTTP/1.1 200 OK\r\nContent-Length: 1152921504606846976\r\n\r\n"});
    HttpClient client("127.0.0.1", server.port, true, true, 5 * kSecond);
    std::string body, what;
    EXPECT_EQ(kind_of([&] { client.exchange("POST", "/call/1?wanted=16", "", "", 0, 16, body); },
                      &what),
              ErrorKind::payload_mismatch);
    EXPECT_NE(what.find("response of 1152921504606846976 bytes, expected at most 16"),
              std::string::npos)
        << what;
  }
  EXPECT_EQ(get_fails("HTTP/1.1 500 Oops\r\nContent-Length: 1000000\r\n\r\n", 0),
            ErrorKind::protocol);
}

TEST(RestClient, BrokenAnswersAreProtocolOrIoErrors) {
  {
    std::string what;
    EXPECT_EQ(get_fails("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabc", 2, &what),
              ErrorKind::protocol);
    EXPECT_NE(what.find("1 bytes after the body"), std::string::npos) << what;
  }
  EXPECT_EQ(get_fails("garbage\r\n\r\n", 2), ErrorKind::protocol);
}

TEST(RestClient, ClosedMidBodyIsIoAndSilenceIsATimeout) {
  std::string body, what;
  {
    Scripted server({"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"}, true, true);
    HttpClient client("127.0.0.1", server.port, true, true, 5 * kSecond);
    EXPECT_EQ(kind_of([&] { client.exchange("GET", "/", "", nullptr, 0, 10, body); }, &what),
              ErrorKind::io);
    EXPECT_NE(what.find("the server closed the connection"), std::string::npos) << what;
  }
  Scripted silent({}, false);
  HttpClient client("127.0.0.1", silent.port, true, true, kSecond / 5);
  EXPECT_EQ(kind_of([&] { client.exchange("GET", "/", "", nullptr, 0, 0, body); }, &what),
            ErrorKind::timeout);
  EXPECT_NE(what.find("no answer within the io timeout"), std::string::npos) << what;
}

TEST(RestClient, RefusedConnectIsIo) {
  int port = 0;
  {
    Scripted gone({}, false);
    port = gone.port;
    HttpClient first("127.0.0.1", gone.port, true, true, kSecond);
    first.connect();  // lets the scripted server's accept return
  }
  HttpClient client("127.0.0.1", static_cast<std::uint16_t>(port), true, true, kSecond);
  std::string body, what;
  EXPECT_EQ(kind_of([&] { client.exchange("GET", "/", "", nullptr, 0, 0, body); }, &what),
            ErrorKind::io);
  EXPECT_NE(what.find("rest: connect to 127.0.0.1:"), std::string::npos) << what;
}

}  // namespace
}  // namespace ipclab::rpc
