// ZeroC Ice 3.7 (PROTOCOL.md 10.3), C++11 mapping: the stock object adapter (its server thread
// pool) and a twoway proxy `bench:tcp -h HOST -p PORT`. Ice.MessageSizeMax is set to 0, which
// Ice 3.7 reads as "no limit" (its ceiling, 2 GiB); TCP_NODELAY is Ice's default.
#include <Ice/Ice.h>

#include "ipclab_ice.h"
#include "result.hpp"
#include "rpc/echo_session.hpp"
#include "rpc/fields.hpp"
#include "rpc/rpc.hpp"

namespace ipclab::rpc {

namespace {

namespace is = ::ipclabice;

struct IceRecords : RecordTypes<is::Small, is::Medium, is::Large> {
  IPCLAB_CONVERSIONS(is, IPCLAB_PLAIN)
};

// server_threads: the server thread pool's size (Ice's default is 1: one call at a time).
std::shared_ptr<Ice::Communicator> communicator(int server_threads = 1) {
  Ice::InitializationData init;
  init.properties = Ice::createProperties();
  init.properties->setProperty("Ice.ThreadPool.Server.Size", std::to_string(server_threads));
  init.properties->setProperty("Ice.MessageSizeMax", "0");
  // Retrying would hide a dropped connection (and replay a call).
  init.properties->setProperty("Ice.RetryIntervals", "-1");
  return Ice::initialize(init);
}

class IceSession final : public FrameworkSession<IceSession, IceRecords> {
 public:
  explicit IceSession(const DriveOptions& o) {
    const InetEndpoint& hp = endpoint_as<InetEndpoint>(o.endpoint);
    const int ms = timeout_ms(o);
    try {
      ic_ = communicator();
      proxy_ = Ice::uncheckedCast<is::BenchPrx>(
                   ic_->stringToProxy("bench:tcp -h " + hp.host + " -p " + std::to_string(hp.port)))
                   ->ice_invocationTimeout(ms);
      proxy_->ice_getConnection();  // connected before the warm-up
    } catch (...) {
      if (ic_) ic_->destroy();  // the destructor does not run for a failed constructor
      rethrow("connect");
    }
  }
  ~IceSession() override {
    if (ic_) ic_->destroy();
  }

  std::uint8_t* prepare_call(std::uint32_t request_size, std::uint32_t wanted) override {
    request_.resize(request_size);
    wanted_ = static_cast<int>(wanted);
    return request_.data();
  }
  void call(std::uint64_t seq) override {
    guarded("call", [&] { response_ = proxy_->call(static_cast<long long>(seq), wanted_, request_); });
  }
  void put(std::uint64_t seq) override {
    guarded("put", [&] { proxy_->put(static_cast<long long>(seq), request_); });
  }
  std::pair<const std::uint8_t*, std::size_t> response() override {
    return {response_.data(), response_.size()};
  }
  std::uint64_t finish() override {
    return guarded("finish", [&] { return static_cast<std::uint64_t>(proxy_->finish()); });
  }

  void invoke(const is::Small& in, is::Small& out) { out = proxy_->echoSmall(in); }
  void invoke(const is::Medium& in, is::Medium& out) { out = proxy_->echoMedium(in); }
  void invoke(const is::Large& in, is::Large& out) { out = proxy_->echoLarge(in); }
  void invoke_put(const is::Small& in) { proxy_->putSmall(in); }
  void invoke_put(const is::Medium& in) { proxy_->putMedium(in); }
  void invoke_put(const is::Large& in) { proxy_->putLarge(in); }
  [[noreturn]] static void rethrow(const char* what) {
    try {
      throw;
    } catch (const Ice::InvocationTimeoutException& e) {
      throw PeerError(ErrorKind::timeout, std::string("ice: ") + what + ": " + e.what());
    } catch (const Ice::TimeoutException& e) {
      throw PeerError(ErrorKind::timeout, std::string("ice: ") + what + ": " + e.what());
    } catch (const Ice::SocketException& e) {  // refused, connection lost, ...
      throw PeerError(ErrorKind::io, std::string("ice: ") + what + ": " + e.what());
    } catch (const Ice::DNSException& e) {
      throw PeerError(ErrorKind::io, std::string("ice: ") + what + ": " + e.what());
    } catch (const Ice::Exception& e) {
      throw PeerError(ErrorKind::protocol, std::string("ice: ") + what + ": " + e.what());
    }
  }

 private:
  std::shared_ptr<Ice::Communicator> ic_;
  std::shared_ptr<is::BenchPrx> proxy_;
  is::Bytes request_, response_;
  int wanted_ = 0;
};

class BenchI final : public is::Bench {
 public:
  explicit BenchI(Service& service) : service_(service) {}
  is::Bytes call(long long seq, int wanted, is::Bytes request, const Ice::Current&) override {
    if (wanted < 0) throw Ice::MarshalException(__FILE__, __LINE__, "negative wanted");
    is::Bytes out(static_cast<std::size_t>(wanted));
    service_.call(static_cast<std::uint64_t>(seq), static_cast<std::uint32_t>(wanted),
                  request.data(), request.size(), out.data());
    return out;
  }
  is::Small echoSmall(is::Small v, const Ice::Current&) override { return echo(std::move(v)); }
  is::Medium echoMedium(is::Medium v, const Ice::Current&) override { return echo(std::move(v)); }
  is::Large echoLarge(is::Large v, const Ice::Current&) override { return echo(std::move(v)); }
  long long finish(const Ice::Current&) override {
    return static_cast<long long>(service_.finish());
  }
  void put(long long seq, is::Bytes request, const Ice::Current&) override {
    service_.put(static_cast<std::uint64_t>(seq), request.data(), request.size());
  }
  void putSmall(is::Small, const Ice::Current&) override {}
  void putMedium(is::Medium, const Ice::Current&) override {}
  void putLarge(is::Large, const Ice::Current&) override {}

 private:
  template <class T>
  T echo(T v) {
    v.n2 = service_.echo_n2(v.n2);
    return v;
  }
  Service& service_;
};

}  // namespace

std::unique_ptr<Session> open_ice(const DriveOptions& o) {
  return std::make_unique<IceSession>(o);
}

void serve_ice(const ServeOptions& o, Service& service) {
  const InetEndpoint& hp = endpoint_as<InetEndpoint>(o.endpoint);
  std::string endpoint;
  try {
    // load (11.5.4): "thread-pool-4" is the pool at 4 threads; else Ice's default, 1.
    static std::shared_ptr<Ice::Communicator> ic =
        communicator(o.load && o.server_model == "thread-pool-4" ? 4 : 1);
    auto adapter = ic->createObjectAdapterWithEndpoints(
        "ipclab", "tcp -h " + hp.host + " -p " + std::to_string(hp.port));
    adapter->add(std::make_shared<BenchI>(service), Ice::stringToIdentity("bench"));
    adapter->activate();
    for (const auto& e : adapter->getEndpoints())
      if (auto ip = std::dynamic_pointer_cast<Ice::IPEndpointInfo>(e->getInfo()))
        endpoint = hp.host + ":" + std::to_string(ip->port);
  } catch (const Ice::Exception& e) {
    throw PeerError(ErrorKind::io, std::string("ice: cannot listen on ") + o.endpoint_text + ": " +
                                       e.what());
  }
  if (endpoint.empty()) throw PeerError(ErrorKind::io, "ice: the adapter has no tcp endpoint");
  announce_ready(endpoint, o.mechanism_name, ready_extra(o));
  wait_forever();
}

}  // namespace ipclab::rpc
