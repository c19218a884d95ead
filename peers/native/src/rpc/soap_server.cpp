// SOAP server (PROTOCOL.md 10.3): the service class soapcpp2 generates from
// protocol/idl/ipclab_soap.wsdl, on 127.0.0.1, with gSOAP's multi-threaded pattern: the listening
// context accepts, and each connection is served on a thread of its own by a copy of the context
// (soap_copy), so kept-alive clients are served at once. gSOAP sets TCP_NODELAY on the listening
// and on every accepted socket. The path is not checked: gSOAP dispatches on the body's element,
// so POST /soap (the contract's) is served, like any other path.
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <system_error>
#include <thread>

#include "frame.hpp"
#include "ipclab_soapBenchBindingService.h"
#include "result.hpp"
#include "rpc/rpc.hpp"
#include "rpc/soap_context.hpp"

namespace ipclab::rpc {

namespace {

using namespace soap_binding;

// Frees what a request and its answer allocated in the connection's context, after each answer
// (gSOAP's serve loop keeps a kept-alive connection's data until the connection ends otherwise).
int release_request(struct soap* soap) {
  soap_destroy(soap);
  soap_end(soap);
  return SOAP_OK;
}

class BenchServer final : public gs::BenchBindingService {
 public:
  BenchServer(struct soap* soap, Service& service, bool owns)
      : BenchBindingService(soap), service_(service) {
    soap_own = owns;  // the generated destructor then frees the context
  }
  // A copy for one accepted connection: its own context, the same service.
  BenchBindingService* copy() override {
    return new BenchServer(soap_copy(soap), service_, true);
  }

  int call(gs::_ipclab__call* in, gs::_ipclab__callResponse& out) override {
    if (in == nullptr || in->wanted < 0 || static_cast<std::uint32_t>(in->wanted) > kMaxPayload)
      return soap_senderfault("call: wanted is not 0 ... 134217728", nullptr);
    const auto wanted = static_cast<std::uint32_t>(in->wanted);
    auto* answer = static_cast<unsigned char*>(soap_malloc(soap, wanted > 0 ? wanted : 1));
    if (answer == nullptr) return soap->error = SOAP_EOM;
    service_.call(static_cast<std::uint64_t>(in->seq), wanted, bytes_of(in->request),
                  size_of(in->request), answer);
    out.result = base64_of(answer, wanted);
    return SOAP_OK;
  }
  int put(gs::_ipclab__put* in, gs::_ipclab__putResponse&) override {
    if (in == nullptr) return soap_senderfault("put: no request", nullptr);
    service_.put(static_cast<std::uint64_t>(in->seq), bytes_of(in->request),
                 size_of(in->request));
    return SOAP_OK;
  }
  int finish(gs::_ipclab__finish*, gs::_ipclab__finishResponse& out) override {
    out.result = static_cast<LONG64>(service_.finish());
    return SOAP_OK;
  }
  int echoSmall(gs::_ipclab__echoSmall* in, gs::_ipclab__echoSmallResponse& out) override {
    return echo(in, out);
  }
  int echoMedium(gs::_ipclab__echoMedium* in, gs::_ipclab__echoMediumResponse& out) override {
    return echo(in, out);
  }
  int echoLarge(gs::_ipclab__echoLarge* in, gs::_ipclab__echoLargeResponse& out) override {
    return echo(in, out);
  }
  int putSmall(gs::_ipclab__putSmall* in, gs::_ipclab__putSmallResponse&) override {
    return taken(in);
  }
  int putMedium(gs::_ipclab__putMedium* in, gs::_ipclab__putMediumResponse&) override {
    return taken(in);
  }
  int putLarge(gs::_ipclab__putLarge* in, gs::_ipclab__putLargeResponse&) override {
    return taken(in);
  }

 private:
  // The record read from the request is the answer (it lives in the context until the answer
  // is sent); only n2 changes, under the fault.
  template <class Request, class Reply>
  int echo(Request* in, Reply& out) {
    if (in == nullptr || in->record == nullptr)
      return soap_senderfault("echo: no record", nullptr);
    in->record->n2 = service_.echo_n2(in->record->n2);
    out.result = in->record;
    return SOAP_OK;
  }
  template <class Request>
  int taken(Request* in) {
    return in == nullptr || in->record == nullptr ? soap_senderfault("put: no record", nullptr)
                                                  : SOAP_OK;
  }

  Service& service_;
};

// Serves one accepted connection until the client closes it.
void serve_connection(std::unique_ptr<gs::BenchBindingService> connection) {
  connection->serve();
}

std::uint16_t bound_port(SOAP_SOCKET fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw PeerError(ErrorKind::io, std::string("soap: getsockname: ") + std::strerror(errno));
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

// The listening context: kept-alive connections without a request limit (gSOAP closes one
// after 100 requests by default), each request's memory freed after its answer.
struct soap* listening_context() {
  struct soap* soap = soap_new1(SOAP_IO_KEEPALIVE);
  if (soap == nullptr) throw PeerError(ErrorKind::internal, "soap: soap_new failed");
  raise_limits(soap);
  soap->max_keep_alive = 0;
  soap->fserveloop = release_request;
  return soap;
}

[[noreturn]] void accept_forever(BenchServer& server) {
  for (;;) {
    if (!soap_valid_socket(server.accept())) {
      const int err = server.soap->errnum;
      if (err == EINTR || err == ECONNABORTED || err == 0) continue;
      char text[256];
      throw PeerError(ErrorKind::io, std::string("soap: accept: ") +
                                         soap_sprint_fault(server.soap, text, sizeof text));
    }
    std::unique_ptr<gs::BenchBindingService> connection(server.copy());
    try {
      std::thread(serve_connection, std::move(connection)).detach();
    } catch (const std::system_error&) {
      // No thread for it: the connection is closed (the context freed) and the server goes on.
    }
  }
}

}  // namespace

void serve_soap(const ServeOptions& o, Service& service) {
  const InetEndpoint& hp = endpoint_as<InetEndpoint>(o.endpoint);
  static BenchServer server(listening_context(), service, true);
  if (!soap_valid_socket(server.bind(hp.host.c_str(), hp.port, SOMAXCONN))) {
    char text[256];
    throw PeerError(ErrorKind::io, "soap: cannot listen on " + o.endpoint_text + ": " +
                                       soap_sprint_fault(server.soap, text, sizeof text));
  }
  announce_ready(hp.host + ":" + std::to_string(bound_port(server.soap->master)),
                 o.mechanism_name, ready_extra(o));
  accept_forever(server);
}

}  // namespace ipclab::rpc
