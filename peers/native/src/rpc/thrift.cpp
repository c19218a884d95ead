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
#include <sys/socket.h>

#include <variant>

#include "Bench.h"
#include "result.hpp"
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

#define TO_I(f, i) m.f = r.n[i];
#define TO_S(f, i) m.f = r.s[i];
#define TO_B(f, i) m.f = r.b[i];
#define TO_D(f, i) m.f = r.d[i];
#define TO_LI(f, i) m.f = r.li[i];
#define TO_LS(f, i) m.f = r.ls[i];
#define TO_LD(f, i) m.f = r.ld[i];
#define FROM_I(f, i) r.n.push_back(m.f);
#define FROM_S(f, i) r.s.push_back(m.f);
#define FROM_B(f, i) r.b.push_back(m.f);
#define FROM_D(f, i) r.d.push_back(m.f);
#define FROM_LI(f, i) r.li.push_back(m.f);
#define FROM_LS(f, i) r.ls.push_back(m.f);
#define FROM_LD(f, i) r.ld.push_back(m.f);
#define CONVERT(Type, FIELDS)                                                                 \
  void to_message(const Record& r, tt::Type& m) {                                             \
    FIELDS(TO_I, TO_S, TO_B, TO_D, TO_LI, TO_LS, TO_LD)                                       \
  }                                                                                           \
  Record from_message(const tt::Type& m) {                                                    \
    Record r;                                                                                 \
    FIELDS(FROM_I, FROM_S, FROM_B, FROM_D, FROM_LI, FROM_LS, FROM_LD)                         \
    return r;                                                                                 \
  }
CONVERT(Small, IPCLAB_SMALL_FIELDS)
CONVERT(Medium, IPCLAB_MEDIUM_FIELDS)
CONVERT(Large, IPCLAB_LARGE_FIELDS)

std::shared_ptr<TConfiguration> configuration() {
  return std::make_shared<TConfiguration>(static_cast<int>(kMessageLimit),
                                          static_cast<int>(kMessageLimit));
}

std::shared_ptr<TProtocol> make_protocol(std::shared_ptr<TTransport> t, bool compact) {
  if (compact) return std::make_shared<apache::thrift::protocol::TCompactProtocol>(t);
  return std::make_shared<apache::thrift::protocol::TBinaryProtocol>(t);
}

[[noreturn]] void rethrow(const char* what) {
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

class ThriftSession final : public Session {
 public:
  ThriftSession(const DriveOptions& o, bool compact) {
    const HostPort hp = parse_host_port(o.endpoint);
    const auto cfg = configuration();
    auto socket = std::make_shared<apache::thrift::transport::TSocket>(hp.host, hp.port, cfg);
    const std::int64_t ms64 = (o.io_timeout_ns + 999'999) / 1'000'000;
    const int ms = ms64 > INT32_MAX ? INT32_MAX : static_cast<int>(ms64);
    socket->setConnTimeout(ms);
    socket->setRecvTimeout(ms);
    socket->setSendTimeout(ms);
    socket->setNoDelay(true);
    transport_ = std::make_shared<apache::thrift::transport::TBufferedTransport>(socket, cfg);
    client_ = std::make_unique<tt::BenchClient>(make_protocol(transport_, compact));
    try {
      transport_->open();
    } catch (...) {
      rethrow("connect");
    }
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
    try {
      client_->call(response_, static_cast<std::int64_t>(seq), wanted_, request_);
    } catch (...) {
      rethrow("call");
    }
  }
  std::pair<const std::uint8_t*, std::size_t> response() override {
    return {reinterpret_cast<const std::uint8_t*>(response_.data()), response_.size()};
  }

  void prepare_echo(PayloadKind kind, const Record& record) override {
    switch (kind) {
      case PayloadKind::small: value_.emplace<Echo<tt::Small>>(); break;
      case PayloadKind::medium: value_.emplace<Echo<tt::Medium>>(); break;
      default: value_.emplace<Echo<tt::Large>>(); break;
    }
    std::visit([&](auto& e) { if constexpr (has_value<decltype(e)>) to_message(record, e.in); },
               value_);
  }
  void stamp_echo(std::int32_t n1) override {
    std::visit([&](auto& e) { if constexpr (has_value<decltype(e)>) e.in.n1 = n1; }, value_);
  }
  void echo() override {
    try {
      std::visit([&](auto& e) { if constexpr (has_value<decltype(e)>) invoke(e); }, value_);
    } catch (...) {
      rethrow("echo");
    }
  }
  Record echoed() override {
    Record r;
    std::visit([&](auto& e) { if constexpr (has_value<decltype(e)>) r = from_message(e.out); },
               value_);
    return r;
  }

  std::uint64_t finish() override {
    try {
      return static_cast<std::uint64_t>(client_->finish());
    } catch (...) {
      rethrow("finish");
    }
  }

 private:
  template <class T>
  struct Echo {
    T in, out;
  };
  template <class E>
  static constexpr bool has_value = !std::is_same_v<std::decay_t<E>, std::monostate>;
  void invoke(Echo<tt::Small>& e) { client_->echoSmall(e.out, e.in); }
  void invoke(Echo<tt::Medium>& e) { client_->echoMedium(e.out, e.in); }
  void invoke(Echo<tt::Large>& e) { client_->echoLarge(e.out, e.in); }

  std::shared_ptr<TTransport> transport_;
  std::unique_ptr<tt::BenchClient> client_;
  std::string request_, response_;
  std::int32_t wanted_ = 0;
  std::variant<std::monostate, Echo<tt::Small>, Echo<tt::Medium>, Echo<tt::Large>> value_;
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
  const HostPort hp = parse_host_port(o.endpoint);
  auto socket = std::make_shared<ServerSocket>(hp.host, hp.port);
  const std::string mech = mechanism_name(o.mechanism);
  const std::string host = hp.host;
  // READY once the socket listens; serve() below listens and then accepts.
  socket->setListenCallback([mech, host](THRIFT_SOCKET fd) {
    sockaddr_in addr{};
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    announce_ready(host + ":" + std::to_string(ntohs(addr.sin_port)), mech);
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
