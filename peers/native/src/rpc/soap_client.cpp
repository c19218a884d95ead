// SOAP client (PROTOCOL.md 10.3): the proxy soapcpp2 generates from protocol/idl/ipclab_soap.wsdl,
// POSTing to http://HOST:PORT/soap over one kept-alive HTTP/1.1 connection (SOAP_IO_KEEPALIVE;
// gSOAP sets TCP_NODELAY on every socket it connects). --io-timeout is gSOAP's connect, send and
// receive timeout.
#include <poll.h>

#include <climits>
#include <cstring>
#include <string>

#include "ipclab_soapBenchBindingProxy.h"
#include "rpc/echo_session.hpp"
#include "rpc/fields.hpp"
#include "rpc/rpc.hpp"
#include "rpc/soap_context.hpp"

namespace ipclab::rpc {

namespace {

using namespace soap_binding;

// The generated record types by the names IPCLAB_CONVERSIONS expects.
namespace records {
using Small = gs::ipclab__Small;
using Medium = gs::ipclab__Medium;
using Large = gs::ipclab__Large;
}  // namespace records

// A reply's record lives in the proxy's context until the next call frees it.
struct SoapRecords : RecordTypes<records::Small, records::Medium, records::Large> {
  template <class T>
  using Reply = T*;
  IPCLAB_CONVERSIONS(records, IPCLAB_PLAIN)
  template <class T>
  static Record from_message(const T* m) {
    return from_message(*m);
  }
};

// gSOAP's timeouts: seconds when positive, microseconds when negative.
int soap_timeout(const DriveOptions& o) noexcept {
  const int ms = timeout_ms(o);
  return ms <= INT_MAX / 1000 ? -ms * 1000 : (ms + 999) / 1000;
}

// Whether the socket has something to read now (data, or the peer's end of stream).
bool readable_now(const struct soap* s) noexcept {
  pollfd p{soap_valid_socket(s->recvsk) ? s->recvsk : s->socket, POLLIN, 0};
  return ::poll(&p, 1, 0) != 0;
}

class SoapSession final : public FrameworkSession<SoapSession, SoapRecords> {
 public:
  explicit SoapSession(const DriveOptions& o)
      : endpoint_("http://" + endpoint_as<InetEndpoint>(o.endpoint).host + ":" +
                  std::to_string(endpoint_as<InetEndpoint>(o.endpoint).port) + "/soap"),
        proxy_(endpoint_.c_str(), SOAP_IO_KEEPALIVE) {
    struct soap* s = proxy_.soap;
    raise_limits(s);
    s->connect_timeout = s->send_timeout = s->recv_timeout = soap_timeout(o);
    watch_timeouts(s);
    // Connects before the warm-up (10.3: "a first HTTP request"): putSmall answers nothing and
    // changes nothing on the server.
    guarded("connect", [&] {
      put_record<gs::_ipclab__putSmall, gs::_ipclab__putSmallResponse>(
          gs::ipclab__Small{}, [&](auto* q, auto& a) { return proxy_.putSmall(q, a); },
          "connect");
    });
  }

  std::uint8_t* prepare_call(std::uint32_t request_size, std::uint32_t wanted) override {
    request_.resize(request_size);
    call_.wanted = static_cast<int>(wanted);
    call_.request = base64_of(request_.data(), request_.size());
    put_.request = call_.request;
    return request_.data();
  }
  void call(std::uint64_t seq) override {
    guarded("call", [&] {
      begin();
      call_.seq = static_cast<LONG64>(seq);
      check(proxy_.call(&call_, called_), "call");
    });
  }
  std::pair<const std::uint8_t*, std::size_t> response() override {
    return {bytes_of(called_.result), size_of(called_.result)};
  }
  void put(std::uint64_t seq) override {
    guarded("put", [&] {
      begin();
      put_.seq = static_cast<LONG64>(seq);
      gs::_ipclab__putResponse done;
      check(proxy_.put(&put_, done), "put");
    });
  }
  std::uint64_t finish() override {
    return guarded("finish", [&] {
      begin();
      gs::_ipclab__finish ask;
      gs::_ipclab__finishResponse answer;
      check(proxy_.finish(&ask, answer), "finish");
      return static_cast<std::uint64_t>(answer.result);
    });
  }

  void invoke(const gs::ipclab__Small& in, gs::ipclab__Small*& out) {
    out = echo<gs::_ipclab__echoSmall, gs::_ipclab__echoSmallResponse>(
        in, [&](auto* q, auto& a) { return proxy_.echoSmall(q, a); });
  }
  void invoke(const gs::ipclab__Medium& in, gs::ipclab__Medium*& out) {
    out = echo<gs::_ipclab__echoMedium, gs::_ipclab__echoMediumResponse>(
        in, [&](auto* q, auto& a) { return proxy_.echoMedium(q, a); });
  }
  void invoke(const gs::ipclab__Large& in, gs::ipclab__Large*& out) {
    out = echo<gs::_ipclab__echoLarge, gs::_ipclab__echoLargeResponse>(
        in, [&](auto* q, auto& a) { return proxy_.echoLarge(q, a); });
  }
  void invoke_put(const gs::ipclab__Small& in) {
    put_record<gs::_ipclab__putSmall, gs::_ipclab__putSmallResponse>(
        in, [&](auto* q, auto& a) { return proxy_.putSmall(q, a); });
  }
  void invoke_put(const gs::ipclab__Medium& in) {
    put_record<gs::_ipclab__putMedium, gs::_ipclab__putMediumResponse>(
        in, [&](auto* q, auto& a) { return proxy_.putMedium(q, a); });
  }
  void invoke_put(const gs::ipclab__Large& in) {
    put_record<gs::_ipclab__putLarge, gs::_ipclab__putLargeResponse>(
        in, [&](auto* q, auto& a) { return proxy_.putLarge(q, a); });
  }
  // gSOAP reports through return codes (check() throws PeerErrors); anything else that escapes
  // a call is not the framework's error.
  [[noreturn]] static void rethrow(const char* what) {
    try {
      throw;
    } catch (const std::exception& e) {
      throw PeerError(ErrorKind::internal, std::string("soap: ") + what + ": " + e.what());
    }
  }

 private:
  // Before each call: frees the previous reply (gSOAP keeps every reply in the context until
  // soap_destroy + soap_end) and forgets the previous call's timeout.
  void begin() {
    proxy_.destroy();
    timed_out_ = false;
  }

  template <class Request, class Reply, class T, class Call>
  T* echo(const T& in, Call&& stub) {
    begin();
    Request request;
    request.record = const_cast<T*>(&in);  // the generated request holds a non-const pointer
    Reply reply;
    check(stub(&request, reply), "echo");
    if (reply.result == nullptr)
      throw PeerError(ErrorKind::protocol, "soap: echo: the answer has no result");
    return reply.result;
  }
  template <class Request, class Reply, class T, class Call>
  void put_record(const T& in, Call&& stub, const char* what = "put") {
    begin();
    Request request;
    request.record = const_cast<T*>(&in);
    Reply reply;
    check(stub(&request, reply), what);
  }

  void check(int status, const char* what);
  void watch_timeouts(struct soap* s);
  static std::size_t receive(struct soap* s, char* buf, std::size_t n);
  static int send(struct soap* s, const char* buf, std::size_t n);

  std::string endpoint_;  // the proxy keeps a pointer to it
  gs::BenchBindingProxy proxy_;
  std::vector<std::uint8_t> request_;
  gs::_ipclab__call call_;
  gs::_ipclab__callResponse called_;
  gs::_ipclab__put put_;
  // gSOAP reports a receive that timed out like the end of the stream (SOAP_EOF, errno 0), so
  // its socket callbacks are wrapped to tell the two apart when they happen.
  bool timed_out_ = false;
  std::size_t (*receive_)(struct soap*, char*, std::size_t) = nullptr;
  int (*send_)(struct soap*, const char*, std::size_t) = nullptr;
};

void SoapSession::watch_timeouts(struct soap* s) {
  s->user = this;
  receive_ = s->frecv;
  send_ = s->fsend;
  s->frecv = receive;
  s->fsend = send;
}

// gSOAP's frecv returns 0 with errnum 0 both at the end of the stream and when recv_timeout
// passed; at the end of the stream the socket still polls readable.
std::size_t SoapSession::receive(struct soap* s, char* buf, std::size_t n) {
  auto* self = static_cast<SoapSession*>(s->user);
  const std::size_t got = self->receive_(s, buf, n);
  if (got == 0 && s->errnum == 0 && s->recv_timeout != 0 && !readable_now(s))
    self->timed_out_ = true;
  return got;
}

// gSOAP's fsend fails with errnum 0 only when send_timeout passed without room to send.
int SoapSession::send(struct soap* s, const char* buf, std::size_t n) {
  auto* self = static_cast<SoapSession*>(s->user);
  const int status = self->send_(s, buf, n);
  if (status == SOAP_EOF && s->errnum == 0) self->timed_out_ = true;
  return status;
}

// "Connection refused (connect failed in tcp_connect(); gSOAP error 28)": the fault gSOAP made
// of its error or received from the server, and the code (an HTTP status from 100 on).
std::string describe(struct soap* s) {
  if (*soap_faultcode(s) == nullptr) soap_set_fault(s);  // gSOAP fills it in lazily
  const char* fault = soap_fault_string(s);
  const char* detail = soap_fault_detail(s);
  std::string text = fault != nullptr ? fault : "no fault string";
  text += " (";
  if (detail != nullptr && *detail != '\0') text += std::string(detail) + "; ";
  text += s->error >= 100 ? "HTTP status " : "gSOAP error ";
  return text + std::to_string(s->error) + ")";
}

// 10.1: a timeout; a refused, reset or closed connection is io; everything else the server or
// the wire said (a soap:Fault, an HTTP error status, a malformed answer) is protocol.
void SoapSession::check(int status, const char* what) {
  if (status == SOAP_OK) return;
  struct soap* s = proxy_.soap;
  const std::string text = describe(s);
  const bool connect_timeout =
      s->error == SOAP_TCP_ERROR && text.compare(0, 8, "Timeout ") == 0;
  ErrorKind kind = ErrorKind::protocol;
  if (timed_out_ || connect_timeout)
    kind = ErrorKind::timeout;
  else if (s->error == SOAP_TCP_ERROR || s->error == SOAP_EOF)
    kind = ErrorKind::io;
  throw PeerError(kind, std::string("soap: ") + what + ": " + text);
}

}  // namespace

std::unique_ptr<Session> open_soap(const DriveOptions& o) {
  return std::make_unique<SoapSession>(o);
}

}  // namespace ipclab::rpc
