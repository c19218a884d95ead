// Apache Thrift (PROTOCOL.md 10.3): TSocket + TBufferedTransport + TBinaryProtocol (strict
// writes) or TCompactProtocol; the server is the stock TThreadedServer. TConfiguration's message
// size limit (100 MB by default) is raised to kMessageLimit on every transport.
#include <thrift/TConfiguration.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/protocol/TCompactProtocol.h>
#include <thrift/server/TThreadedServer.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TServerSocket.h>
#include <thrift/transport/TSocket.h>

#include <netinet/in.h>
#include <cerrno>
#include <cstring>
#include <sys/socket.h>

#include "Bench.h"
#include "result.hpp"
#include "rpc/echo_session.hpp"
#include "rpc/fields.hpp"
#include "rpc/rpc.hpp"

namespace ipclab::rpc {

namespace {

namespace tt = ::ipclab_thrift;
using apache::thrift::TApplicationException;
using apache::thrift::TConfiguration;
using apache::thrift::TException;
using apache::thrift::protocol::TProtocol;
using apache::thrift::protocol::TProtocolFactory;
using apache::thrift::transport::TTransport;
using apache::thrift::transport::TTransportException;

struct ThriftRecords : RecordTypes<tt::Small, tt::Medium, tt::Large> {
  IPCLAB_CONVERSIONS(tt, IPCLAB_PLAIN)
};

std::shared_ptr<TConfiguration> configuration() {
  return std::make_shared<TConfiguration>(static_cast<int>(kMessageLimit),
                                          static_cast<int>(kMessageLimit));
}

std::shared_ptr<TProtocol> make_protocol(std::shared_ptr<TTransport> t, bool compact) {
  if (compact) return std::make_shared<apache::thrift::protocol::TCompactProtocol>(t);
  return std::make_shared<apache::thrift::protocol::TBinaryProtocol>(t);
}

class ThriftSession final : public FrameworkSession<ThriftSession, ThriftRecords> {
 public:
  ThriftSession(const DriveOptions& o, bool compact) {
    const InetEndpoint& hp = endpoint_as<InetEndpoint>(o.endpoint);
    const auto cfg = configuration();
    auto socket = std::make_shared<apache::thrift::transport::TSocket>(hp.host, hp.port, cfg);
    const int ms = timeout_ms(o);
    socket->setConnTimeout(ms);
    socket->setRecvTimeout(ms);
    socket->setSendTimeout(ms);
    socket->setNoDelay(true);
    transport_ = std::make_shared<apache::thrift::transport::TBufferedTransport>(socket, cfg);
    client_ = std::make_unique<tt::BenchClient>(make_protocol(transport_, compact));
    guarded("connect", [&] { transport_->open(); });
  }
  ~ThriftSession() override {
    try {
      transport_->close();
    } catch (...) {
    }
  }

  std::uint8_t* prepare_call(std::uint32_t request_size, std::uint32_t wanted) override {
    request_.resize(request_size);
    wanted_ = static_cast<std::int32_t>(wanted);
    return reinterpret_cast<std::uint8_t*>(request_.data());
  }
  void call(std::uint64_t seq) override {
    guarded("call", [&] { client_->call(response_, static_cast<std::int64_t>(seq), wanted_, request_); });
  }
  void put(std::uint64_t seq) override {
    guarded("put", [&] { client_->put(static_cast<std::int64_t>(seq), request_); });
  }
  std::pair<const std::uint8_t*, std::size_t> response() override {
    return {reinterpret_cast<const std::uint8_t*>(response_.data()), response_.size()};
  }
  std::uint64_t finish() override {
    return guarded("finish", [&] { return static_cast<std::uint64_t>(client_->finish()); });
  }

  void invoke(const tt::Small& in, tt::Small& out) { client_->echoSmall(out, in); }
  void invoke(const tt::Medium& in, tt::Medium& out) { client_->echoMedium(out, in); }
  void invoke(const tt::Large& in, tt::Large& out) { client_->echoLarge(out, in); }
  void invoke_put(const tt::Small& in) { client_->putSmall(in); }
  void invoke_put(const tt::Medium& in) { client_->putMedium(in); }
  void invoke_put(const tt::Large& in) { client_->putLarge(in); }
  [[noreturn]] static void rethrow(const char* what) {
    try {
      throw;
    } catch (const TTransportException& e) {
      const std::string text = std::string("thrift: ") + what + ": " + e.what();
      throw PeerError(e.getType() == TTransportException::TIMED_OUT ? ErrorKind::timeout
                                                                     : ErrorKind::io,
                      text);
    } catch (const TException& e) {
      throw PeerError(ErrorKind::protocol, std::string("thrift: ") + what + ": " + e.what());
    }
  }

 private:
  std::shared_ptr<TTransport> transport_;
  std::unique_ptr<tt::BenchClient> client_;
  std::string request_, response_;
  std::int32_t wanted_ = 0;
};

class Handler final : public tt::BenchIf {
 public:
  explicit Handler(Service& service) : service_(service) {}
  void call(std::string& out, const int64_t seq, const int32_t wanted,
            const std::string& request) override {
    if (wanted < 0)
      throw TApplicationException(TApplicationException::UNKNOWN, "negative wanted");
    out.resize(static_cast<std::size_t>(wanted));
    service_.call(static_cast<std::uint64_t>(seq), static_cast<std::uint32_t>(wanted),
                  reinterpret_cast<const std::uint8_t*>(request.data()), request.size(),
                  reinterpret_cast<std::uint8_t*>(out.data()));
  }
  void echoSmall(tt::Small& out, const tt::Small& in) override { echo(out, in); }
  void echoMedium(tt::Medium& out, const tt::Medium& in) override { echo(out, in); }
  void echoLarge(tt::Large& out, const tt::Large& in) override { echo(out, in); }
  int64_t finish() override { return static_cast<int64_t>(service_.finish()); }
  void put(const int64_t seq, const std::string& request) override {
    service_.put(static_cast<std::uint64_t>(seq),
                 reinterpret_cast<const std::uint8_t*>(request.data()), request.size());
  }
  void putSmall(const tt::Small&) override {}
  void putMedium(const tt::Medium&) override {}
  void putLarge(const tt::Large&) override {}

 private:
  template <class T>
  void echo(T& out, const T& in) {
    out = in;
    out.n2 = service_.echo_n2(in.n2);
  }
  Service& service_;
};

// TServerSocket hands accepted sockets the default configuration; the transport factory puts
// the raised one on the buffered transport the protocol reads through.
class BufferedFactory final : public apache::thrift::transport::TTransportFactory {
 public:
  std::shared_ptr<TTransport> getTransport(std::shared_ptr<TTransport> trans) override {
    return std::make_shared<apache::thrift::transport::TBufferedTransport>(trans,
                                                                          configuration());
  }
};

class ServerSocket final : public apache::thrift::transport::TServerSocket {
 public:
  using TServerSocket::TServerSocket;

 protected:
  std::shared_ptr<apache::thrift::transport::TSocket> createSocket(THRIFT_SOCKET client) override {
    auto s = std::make_shared<apache::thrift::transport::TSocket>(client, configuration());
    s->setNoDelay(true);
    return s;
  }
};

}  // namespace

std::unique_ptr<Session> open_thrift(const DriveOptions& o, bool compact) {
  return std::make_unique<ThriftSession>(o, compact);
}

void serve_thrift(const ServeOptions& o, Service& service, bool compact) {
  const InetEndpoint& hp = endpoint_as<InetEndpoint>(o.endpoint);
  auto socket = std::make_shared<ServerSocket>(hp.host, hp.port);
  const std::string mech = o.mechanism_name;
  const std::string host = hp.host;
  const std::string extra = ready_extra(o);
  // READY once the socket listens. Thrift calls this just before its own listen(), so the
  // socket listens here first (a second listen() only sets the backlog again): READY before
  // listen() let a quick client be refused.
  socket->setListenCallback([mech, host, extra](THRIFT_SOCKET fd) {
    if (::listen(fd, SOMAXCONN) != 0)
      throw PeerError(ErrorKind::io, std::string("thrift: listen: ") + std::strerror(errno));
    sockaddr_in addr{};
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    announce_ready(host + ":" + std::to_string(ntohs(addr.sin_port)), mech, extra);
  });
  std::shared_ptr<TProtocolFactory> protocols;
  if (compact)
    protocols = std::make_shared<apache::thrift::protocol::TCompactProtocolFactory>();
  else
    protocols = std::make_shared<apache::thrift::protocol::TBinaryProtocolFactory>();
  apache::thrift::server::TThreadedServer server(
      std::make_shared<tt::BenchProcessor>(std::make_shared<Handler>(service)), socket,
      std::make_shared<BufferedFactory>(), protocols);
  try {
    server.serve();
  } catch (const TException& e) {
    throw PeerError(ErrorKind::io, std::string("thrift: ") + e.what());
  }
  throw PeerError(ErrorKind::io, "thrift: the server stopped");
}

}  // namespace ipclab::rpc
