// CORBA (PROTOCOL.md 10.3) with omniORB 4.2: the root POA (omniORB's thread-per-connection
// server) on giop:tcp:HOST:PORT, READY's endpoint the object's IOR, and a client that
// string_to_object()s it. giopMaxMsgSize is raised on both sides through ORB_init options.
// Under load (11.5.4) the server is thread-per-connection or omniORB's thread pool, and the
// client's sessions share the process's one ORB, each with an object reference of its own.
#include <omniORB4/CORBA.h>
#include <omniORB4/minorCode.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "ipclab_corba.hh"
#include "payload.hpp"
#include "result.hpp"
#include "rpc/echo_session.hpp"
#include "rpc/fields.hpp"
#include "rpc/rpc.hpp"

namespace ipclab::rpc {

namespace {

namespace ic = ::ipclab_corba;

// Above kMessageLimit, so 128 MiB plus GIOP's headers always fits.
constexpr const char* kGiopMaxMsgSize = "1073741824";

template <class Seq, class V>
void to_seq(Seq& s, const std::vector<V>& v) {
  s.length(static_cast<CORBA::ULong>(v.size()));
  for (CORBA::ULong j = 0; j < s.length(); ++j) s[j] = v[j];
}
inline void to_seq(ic::StringSeq& s, const std::vector<std::string>& v) {
  s.length(static_cast<CORBA::ULong>(v.size()));
  for (CORBA::ULong j = 0; j < s.length(); ++j) s[j] = v[j].c_str();  // copies
}
template <class T, class Seq>
std::vector<T> from_seq(const Seq& s) {
  std::vector<T> v;
  v.reserve(s.length());
  for (CORBA::ULong j = 0; j < s.length(); ++j) v.push_back(T(s[j]));
  return v;
}
inline std::vector<std::string> from_seq_s(const ic::StringSeq& s) {
  std::vector<std::string> v;
  v.reserve(s.length());
  for (CORBA::ULong j = 0; j < s.length(); ++j) v.emplace_back(static_cast<const char*>(s[j]));
  return v;
}

#define CORBA_TO_I(f, i) m.f = r.n[i];
#define CORBA_TO_S(f, i) m.f = r.s[i].c_str();
#define CORBA_TO_B(f, i) m.f = r.b[i];
#define CORBA_TO_D(f, i) m.f = r.d[i];
#define CORBA_TO_LI(f, i) to_seq(m.f, r.li[i]);
#define CORBA_TO_LS(f, i) to_seq(m.f, r.ls[i]);
#define CORBA_TO_LD(f, i) to_seq(m.f, r.ld[i]);
#define CORBA_FROM_I(f, i) r.n.push_back(m.f);
#define CORBA_FROM_S(f, i) r.s.emplace_back(static_cast<const char*>(m.f));
#define CORBA_FROM_B(f, i) r.b.push_back(m.f);
#define CORBA_FROM_D(f, i) r.d.push_back(m.f);
#define CORBA_FROM_LI(f, i) r.li.push_back(from_seq<std::int32_t>(m.f));
#define CORBA_FROM_LS(f, i) r.ls.push_back(from_seq_s(m.f));
#define CORBA_FROM_LD(f, i) r.ld.push_back(from_seq<double>(m.f));

struct CorbaRecords : RecordTypes<ic::Small, ic::Medium, ic::Large> {
  template <class T>
  using Reply = typename T::_var_type;  // the ORB's reply, owned
  IPCLAB_CONVERSIONS(ic, CORBA)
  template <class Var>  // a Reply: converted through the record it holds
  static auto from_message(const Var& v) -> decltype(from_message(v.in())) {
    return from_message(v.in());
  }
};

CORBA::ORB_ptr init_orb(const char* options[][2]) {
  int argc = 1;
  char name[] = "ipclab-peer";
  char* argv[] = {name, nullptr};
  return CORBA::ORB_init(argc, argv, "omniORB4", options);
}

// omniORB has one ORB per process (ORB_init hands the same one out again, and destroy() ends it
// for everyone): the sessions of a load client share it. The first session makes it with its
// options (all sessions of a run have the same), the last one to go destroys it.
class SharedOrb {
 public:
  static CORBA::ORB_ptr acquire(const char* options[][2]) {
    std::lock_guard lock(mutex_);
    if (users_ == 0) orb_ = init_orb(options);
    ++users_;
    return CORBA::ORB::_duplicate(orb_);
  }
  static void release() noexcept {
    std::lock_guard lock(mutex_);
    if (--users_ != 0) return;
    try {
      orb_->destroy();
    } catch (...) {
    }
    CORBA::release(orb_);
    orb_ = nullptr;
  }

 private:
  static inline std::mutex mutex_;
  static inline std::size_t users_ = 0;
  static inline CORBA::ORB_ptr orb_ = nullptr;  // a plain pointer: nothing to run at exit
};

// The client's ORB_init options. Load: oneCallPerConnection (a connection carries one call at a
// time) and maxGIOPConnectionPerServer (default 5) at least the sessions, so C concurrent calls
// go over C TCP connections instead of waiting for one of five.
std::vector<std::string> client_options(const DriveOptions& o) {
  const std::string ms = std::to_string(timeout_ms(o));
  std::vector<std::string> v = {"giopMaxMsgSize", kGiopMaxMsgSize, "clientCallTimeOutPeriod", ms,
                                "clientConnectTimeOutPeriod", ms};
  if (o.pattern == "load") {
    const std::string clients = std::to_string(o.clients < 5 ? 5 : o.clients);
    v.insert(v.end(), {"oneCallPerConnection", "1", "maxGIOPConnectionPerServer", clients});
  }
  return v;
}

class CorbaSession final : public FrameworkSession<CorbaSession, CorbaRecords> {
 public:
  explicit CorbaSession(const DriveOptions& o) : text_(o.corba_string) {
    const std::vector<std::string> v = client_options(o);
    const char* options[8][2] = {};  // name-value pairs, then {nullptr, nullptr}
    for (std::size_t i = 0; i + 1 < v.size(); i += 2)
      options[i / 2][0] = v[i].c_str(), options[i / 2][1] = v[i + 1].c_str();
    guarded("connect", [&] {
      orb_ = SharedOrb::acquire(options);
      shared_ = true;
      CORBA::Object_var obj =
          orb_->string_to_object(endpoint_as<IorEndpoint>(o.endpoint).ior.c_str());
      bench_ = ic::Bench::_unchecked_narrow(obj);
      if (CORBA::is_nil(bench_)) throw PeerError(ErrorKind::protocol, "corba: nil object");
      // A first request connects, before the warm-up.
      if (bench_->_non_existent())
        throw PeerError(ErrorKind::protocol, "corba: the server says the object does not exist");
    });
  }
  ~CorbaSession() override {
    try {
      bench_ = ic::Bench::_nil();
      orb_ = CORBA::ORB::_nil();
    } catch (...) {
    }
    if (shared_) SharedOrb::release();
  }

  std::uint8_t* prepare_call(std::uint32_t request_size, std::uint32_t wanted) override {
    request_.length(request_size);
    wanted_ = wanted;
    return request_.get_buffer();
  }
  // --corba-payload string (callString): the request travels as its text (10.1), mapped once
  // here; each call maps only the stamped first bytes again.
  void request_filled() override {
    if (!text_) return;
    text_request_ = CORBA::string_alloc(request_.length());
    to_text(request_.get_buffer(), request_.length(), text_request_.inout());
    text_request_.inout()[request_.length()] = '\0';
  }
  void call(std::uint64_t seq) override {
    if (text_) return call_string(seq);
    guarded("call", [&] { response_ = bench_->call(seq, wanted_, request_); });
  }
  void put(std::uint64_t seq) override {
    guarded("put", [&] { bench_->put(seq, request_); });
  }
  std::pair<const std::uint8_t*, std::size_t> response() override {
    if (text_)
      return {reinterpret_cast<const std::uint8_t*>(text_response_.in()),
              std::strlen(text_response_.in())};
    return {response_->get_buffer(), response_->length()};
  }
  std::uint64_t finish() override {
    return guarded("finish", [&] { return static_cast<std::uint64_t>(bench_->finish()); });
  }

  void invoke(const ic::Small& in, ic::Small_var& out) { out = bench_->echoSmall(in); }
  void invoke(const ic::Medium& in, ic::Medium_var& out) { out = bench_->echoMedium(in); }
  void invoke(const ic::Large& in, ic::Large_var& out) { out = bench_->echoLarge(in); }
  void invoke_put(const ic::Small& in) { bench_->putSmall(in); }
  void invoke_put(const ic::Medium& in) { bench_->putMedium(in); }
  void invoke_put(const ic::Large& in) { bench_->putLarge(in); }
  [[noreturn]] static void rethrow(const char* what) {
    const auto minor = [](const CORBA::SystemException& e) {
      return std::string(" (") + (e.NP_minorString() ? e.NP_minorString() : "?") + ")";
    };
    try {
      throw;
    } catch (const CORBA::TRANSIENT& e) {
      throw PeerError(e.minor() == omni::TRANSIENT_CallTimedout ? ErrorKind::timeout
                                                                : ErrorKind::io,
                      std::string("corba: ") + what + ": TRANSIENT" + minor(e));
    } catch (const CORBA::COMM_FAILURE& e) {
      throw PeerError(ErrorKind::io, std::string("corba: ") + what + ": COMM_FAILURE" + minor(e));
    } catch (const CORBA::SystemException& e) {
      throw PeerError(ErrorKind::protocol,
                      std::string("corba: ") + what + ": " + e._name() + minor(e));
    } catch (const CORBA::Exception& e) {
      throw PeerError(ErrorKind::protocol, std::string("corba: ") + what + ": " + e._name());
    }
  }

 private:
  void call_string(std::uint64_t seq) {
    const CORBA::ULong n = request_.length() < kStampBytes ? request_.length() : kStampBytes;
    to_text(request_.get_buffer(), n, text_request_.inout());
    guarded("callString",
            [&] { text_response_ = bench_->callString(seq, wanted_, text_request_.in()); });
  }

  bool text_;
  bool shared_ = false;  // holds a use of the shared ORB
  CORBA::ORB_var orb_;
  ic::Bench_var bench_;
  CORBA::String_var text_request_, text_response_;
  ic::Bytes request_;
  ic::Bytes_var response_;
  CORBA::ULong wanted_ = 0;
};

class BenchI final : public POA_ipclab_corba::Bench {
 public:
  explicit BenchI(Service& service) : service_(service) {}
  ic::Bytes* call(CORBA::ULongLong seq, CORBA::ULong wanted, const ic::Bytes& request) override {
    ic::Bytes_var out = new ic::Bytes(wanted);
    out->length(wanted);
    service_.call(seq, wanted, request.get_buffer(), request.length(), out->get_buffer());
    return out._retn();
  }
  ic::Small* echoSmall(const ic::Small& v) override { return echo(v); }
  ic::Medium* echoMedium(const ic::Medium& v) override { return echo(v); }
  ic::Large* echoLarge(const ic::Large& v) override { return echo(v); }
  CORBA::ULongLong finish() override { return service_.finish(); }
  void put(CORBA::ULongLong seq, const ic::Bytes& request) override {
    service_.put(seq, request.get_buffer(), request.length());
  }
  void putSmall(const ic::Small&) override {}
  void putMedium(const ic::Medium&) override {}
  void putLarge(const ic::Large&) override {}
  char* callString(CORBA::ULongLong seq, CORBA::ULong wanted, const char* request) override {
    CORBA::String_var out = CORBA::string_alloc(wanted);
    service_.call_string(seq, wanted, request, std::strlen(request), out.inout());
    out.inout()[wanted] = '\0';
    return out._retn();
  }

 private:
  template <class T>
  T* echo(const T& v) {
    T* out = new T(v);
    out->n2 = service_.echo_n2(v.n2);
    return out;
  }
  Service& service_;
};

}  // namespace

std::unique_ptr<Session> open_corba(const DriveOptions& o) {
  return std::make_unique<CorbaSession>(o);
}

void serve_corba(const ServeOptions& o, Service& service) {
  const InetEndpoint& hp = endpoint_as<InetEndpoint>(o.endpoint);
  // An empty port lets the system choose one.
  const std::string endpoint =
      "giop:tcp:" + hp.host + ":" + (hp.port == 0 ? std::string() : std::to_string(hp.port));
  // load (11.5.4): "thread-pool" is omniORB's pool of server threads (threadPerConnectionPolicy
  // 0) instead of its default, a thread per connection (the rr server's).
  const bool pool = o.load && o.server_model == "thread-pool";
  const char* options[][2] = {{"endPoint", endpoint.c_str()},
                              {"giopMaxMsgSize", kGiopMaxMsgSize},
                              {"threadPerConnectionPolicy", pool ? "0" : "1"},
                              {nullptr, nullptr}};
  std::string ior;
  CORBA::ORB_var orb;
  try {
    orb = init_orb(options);
    CORBA::Object_var obj = orb->resolve_initial_references("RootPOA");
    PortableServer::POA_var poa = PortableServer::POA::_narrow(obj);
    auto* servant = new BenchI(service);
    PortableServer::ObjectId_var id = poa->activate_object(servant);
    CORBA::Object_var ref = poa->id_to_reference(id.in());
    CORBA::String_var text = orb->object_to_string(ref);
    ior = text.in();
    PortableServer::POAManager_var manager = poa->the_POAManager();
    manager->activate();
  } catch (const CORBA::Exception& e) {
    throw PeerError(ErrorKind::io, std::string("corba: cannot serve on ") + endpoint + ": " +
                                       e._name());
  }
  announce_ready(ior, o.mechanism_name, ready_extra(o));
  orb->run();
  throw PeerError(ErrorKind::io, "corba: the ORB stopped");
}

}  // namespace ipclab::rpc
