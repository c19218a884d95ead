// ZeroC Ice 3.7 (PROTOCOL.md 10.3), C++11 mapping: the stock object adapter (its server thread
// pool) and a twoway proxy `bench:tcp -h HOST -p PORT`. Ice.MessageSizeMax is set to 0, which
// Ice 3.7 reads as "no limit" (its ceiling, 2 GiB); TCP_NODELAY is Ice's default.
#include <Ice/Ice.h>

#include <variant>

#include "ipclab_ice.h"
#include "result.hpp"
#include "rpc/fields.hpp"
#include "rpc/rpc.hpp"

namespace ipclab::rpc {

namespace {

namespace is = ::ipclabice;

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
  void to_message(const Record& r, is::Type& m) {                                             \
    FIELDS(TO_I, TO_S, TO_B, TO_D, TO_LI, TO_LS, TO_LD)                                       \
  }                                                                                           \
  Record from_message(const is::Type& m) {                                                    \
    Record r;                                                                                 \
    FIELDS(FROM_I, FROM_S, FROM_B, FROM_D, FROM_LI, FROM_LS, FROM_LD)                         \
    return r;                                                                                 \
  }
CONVERT(Small, IPCLAB_SMALL_FIELDS)
CONVERT(Medium, IPCLAB_MEDIUM_FIELDS)
CONVERT(Large, IPCLAB_LARGE_FIELDS)

std::shared_ptr<Ice::Communicator> communicator() {
  Ice::InitializationData init;
  init.properties = Ice::createProperties();
  init.properties->setProperty("Ice.MessageSizeMax", "0");
  // Retrying would hide a dropped connection (and replay a call).
  init.properties->setProperty("Ice.RetryIntervals", "-1");
  return Ice::initialize(init);
}

[[noreturn]] void rethrow(const char* what) {
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

class IceSession final : public Session {
 public:
  explicit IceSession(const DriveOptions& o) {
    const HostPort hp = parse_host_port(o.endpoint);
    const std::int64_t ms64 = (o.io_timeout_ns + 999'999) / 1'000'000;
    const int ms = ms64 > INT32_MAX ? INT32_MAX : static_cast<int>(ms64);
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
    try {
      response_ = proxy_->call(static_cast<long long>(seq), wanted_, request_);
    } catch (...) {
      rethrow("call");
    }
  }
  std::pair<const std::uint8_t*, std::size_t> response() override {
    return {response_.data(), response_.size()};
  }

  void prepare_echo(PayloadKind kind, const Record& record) override {
    switch (kind) {
      case PayloadKind::small: value_.emplace<Echo<is::Small>>(); break;
      case PayloadKind::medium: value_.emplace<Echo<is::Medium>>(); break;
      default: value_.emplace<Echo<is::Large>>(); break;
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
      return static_cast<std::uint64_t>(proxy_->finish());
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
  void invoke(Echo<is::Small>& e) { e.out = proxy_->echoSmall(e.in); }
  void invoke(Echo<is::Medium>& e) { e.out = proxy_->echoMedium(e.in); }
  void invoke(Echo<is::Large>& e) { e.out = proxy_->echoLarge(e.in); }

  std::shared_ptr<Ice::Communicator> ic_;
  std::shared_ptr<is::BenchPrx> proxy_;
  is::Bytes request_, response_;
  int wanted_ = 0;
  std::variant<std::monostate, Echo<is::Small>, Echo<is::Medium>, Echo<is::Large>> value_;
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
  const HostPort hp = parse_host_port(o.endpoint);
  std::string endpoint;
  try {
    static std::shared_ptr<Ice::Communicator> ic = communicator();
    auto adapter = ic->createObjectAdapterWithEndpoints(
        "ipclab", "tcp -h " + hp.host + " -p " + std::to_string(hp.port));
    adapter->add(std::make_shared<BenchI>(service), Ice::stringToIdentity("bench"));
    adapter->activate();
    for (const auto& e : adapter->getEndpoints())
      if (auto ip = std::dynamic_pointer_cast<Ice::IPEndpointInfo>(e->getInfo()))
        endpoint = hp.host + ":" + std::to_string(ip->port);
  } catch (const Ice::Exception& e) {
    throw PeerError(ErrorKind::io, std::string("ice: cannot listen on ") + o.endpoint + ": " +
                                       e.what());
  }
  if (endpoint.empty()) throw PeerError(ErrorKind::io, "ice: the adapter has no tcp endpoint");
  announce_ready(endpoint, mechanism_name(o.mechanism));
  wait_forever();
}

}  // namespace ipclab::rpc
