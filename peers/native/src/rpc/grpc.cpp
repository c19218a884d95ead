// gRPC (PROTOCOL.md 10.3): the stock synchronous C++ server and a blocking stub on one insecure
// channel. Message size limits are raised to kMessageLimit on both sides.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <variant>

#include "ipclab_grpc.grpc.pb.h"
#include "result.hpp"
#include "rpc/fields.hpp"
#include "rpc/rpc.hpp"

namespace ipclab::rpc {

namespace {

namespace pb = ::ipclab_grpc;

#define TO_I(f, i) m.set_##f(r.n[i]);
#define TO_S(f, i) m.set_##f(r.s[i]);
#define TO_B(f, i) m.set_##f(r.b[i]);
#define TO_D(f, i) m.set_##f(r.d[i]);
#define TO_LI(f, i) m.mutable_##f()->Assign(r.li[i].begin(), r.li[i].end());
#define TO_LS(f, i) for (const auto& v : r.ls[i]) m.add_##f(v);
#define TO_LD(f, i) m.mutable_##f()->Assign(r.ld[i].begin(), r.ld[i].end());
#define FROM_I(f, i) r.n.push_back(m.f());
#define FROM_S(f, i) r.s.push_back(m.f());
#define FROM_B(f, i) r.b.push_back(m.f());
#define FROM_D(f, i) r.d.push_back(m.f());
#define FROM_LI(f, i) r.li.emplace_back(m.f().begin(), m.f().end());
#define FROM_LS(f, i) r.ls.emplace_back(m.f().begin(), m.f().end());
#define FROM_LD(f, i) r.ld.emplace_back(m.f().begin(), m.f().end());
#define CONVERT(Type, FIELDS)                                                                 \
  void to_message(const Record& r, pb::Type& m) {                                             \
    FIELDS(TO_I, TO_S, TO_B, TO_D, TO_LI, TO_LS, TO_LD)                                       \
  }                                                                                           \
  Record from_message(const pb::Type& m) {                                                    \
    Record r;                                                                                 \
    FIELDS(FROM_I, FROM_S, FROM_B, FROM_D, FROM_LI, FROM_LS, FROM_LD)                         \
    return r;                                                                                 \
  }
CONVERT(Small, IPCLAB_SMALL_FIELDS)
CONVERT(Medium, IPCLAB_MEDIUM_FIELDS)
CONVERT(Large, IPCLAB_LARGE_FIELDS)

[[noreturn]] void throw_status(const grpc::Status& s) {
  const std::string text = "grpc: " + s.error_message() + " (status " +
                           std::to_string(static_cast<int>(s.error_code())) + ")";
  switch (s.error_code()) {
    case grpc::StatusCode::DEADLINE_EXCEEDED: throw PeerError(ErrorKind::timeout, text);
    case grpc::StatusCode::UNAVAILABLE: throw PeerError(ErrorKind::io, text);
    default: throw PeerError(ErrorKind::protocol, text);
  }
}

class GrpcSession final : public Session {
 public:
  explicit GrpcSession(const DriveOptions& o) : timeout_(std::chrono::nanoseconds(o.io_timeout_ns)) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(static_cast<int>(kMessageLimit));
    args.SetMaxSendMessageSize(static_cast<int>(kMessageLimit));
    channel_ = grpc::CreateCustomChannel(o.endpoint, grpc::InsecureChannelCredentials(), args);
    // Connected before the warm-up, so no sample pays for the handshake.
    if (!channel_->WaitForConnected(std::chrono::system_clock::now() + timeout_)) {
      // Refused: the channel is in TRANSIENT_FAILURE; still connecting (no HTTP/2 answer): a
      // wait past --io-timeout.
      if (channel_->GetState(false) == GRPC_CHANNEL_TRANSIENT_FAILURE)
        throw PeerError(ErrorKind::io, "grpc: cannot connect to " + o.endpoint);
      throw PeerError(ErrorKind::timeout, "grpc: no connection to " + o.endpoint +
                                              " within --io-timeout");
    }
    stub_ = pb::Bench::NewStub(channel_);
  }

  std::uint8_t* prepare_call(std::uint32_t request_size, std::uint32_t wanted) override {
    request_.mutable_request()->resize(request_size);
    request_.set_wanted(wanted);
    return reinterpret_cast<std::uint8_t*>(request_.mutable_request()->data());
  }
  void call(std::uint64_t seq) override {
    request_.set_seq(seq);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + timeout_);
    const grpc::Status s = stub_->Call(&ctx, request_, &reply_);
    if (!s.ok()) throw_status(s);
  }
  std::pair<const std::uint8_t*, std::size_t> response() override {
    const std::string& r = reply_.response();
    return {reinterpret_cast<const std::uint8_t*>(r.data()), r.size()};
  }

  void prepare_echo(PayloadKind kind, const Record& record) override {
    switch (kind) {
      case PayloadKind::small: value_.emplace<Echo<pb::Small>>(); break;
      case PayloadKind::medium: value_.emplace<Echo<pb::Medium>>(); break;
      default: value_.emplace<Echo<pb::Large>>(); break;
    }
    std::visit([&](auto& e) { if constexpr (has_value<decltype(e)>) to_message(record, e.in); },
               value_);
  }
  void stamp_echo(std::int32_t n1) override {
    std::visit([&](auto& e) { if constexpr (has_value<decltype(e)>) e.in.set_n1(n1); }, value_);
  }
  void echo() override {
    std::visit([&](auto& e) { if constexpr (has_value<decltype(e)>) invoke(e); }, value_);
  }
  Record echoed() override {
    Record r;
    std::visit([&](auto& e) { if constexpr (has_value<decltype(e)>) r = from_message(e.out); },
               value_);
    return r;
  }

  std::uint64_t finish() override {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + timeout_);
    pb::FinishRequest req;
    pb::FinishReply reply;
    const grpc::Status s = stub_->Finish(&ctx, req, &reply);
    if (!s.ok()) throw_status(s);
    return reply.corrupted();
  }

 private:
  template <class T>
  struct Echo {
    T in, out;
  };
  template <class E>
  static constexpr bool has_value = !std::is_same_v<std::decay_t<E>, std::monostate>;

  grpc::Status stub_echo(grpc::ClientContext* c, const pb::Small& in, pb::Small* out) {
    return stub_->EchoSmall(c, in, out);
  }
  grpc::Status stub_echo(grpc::ClientContext* c, const pb::Medium& in, pb::Medium* out) {
    return stub_->EchoMedium(c, in, out);
  }
  grpc::Status stub_echo(grpc::ClientContext* c, const pb::Large& in, pb::Large* out) {
    return stub_->EchoLarge(c, in, out);
  }
  template <class T>
  void invoke(Echo<T>& e) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + timeout_);
    const grpc::Status s = stub_echo(&ctx, e.in, &e.out);
    if (!s.ok()) throw_status(s);
  }

  std::chrono::nanoseconds timeout_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<pb::Bench::Stub> stub_;
  pb::CallRequest request_;
  pb::CallReply reply_;
  std::variant<std::monostate, Echo<pb::Small>, Echo<pb::Medium>, Echo<pb::Large>> value_;
};

class BenchImpl final : public pb::Bench::Service {
 public:
  explicit BenchImpl(rpc::Service& service) : service_(service) {}
  grpc::Status Call(grpc::ServerContext*, const pb::CallRequest* req,
                    pb::CallReply* reply) override {
    std::string* out = reply->mutable_response();
    out->resize(req->wanted());
    service_.call(req->seq(), req->wanted(),
                  reinterpret_cast<const std::uint8_t*>(req->request().data()),
                  req->request().size(), reinterpret_cast<std::uint8_t*>(out->data()));
    return grpc::Status::OK;
  }
  grpc::Status EchoSmall(grpc::ServerContext*, const pb::Small* in, pb::Small* out) override {
    return echo(*in, *out);
  }
  grpc::Status EchoMedium(grpc::ServerContext*, const pb::Medium* in, pb::Medium* out) override {
    return echo(*in, *out);
  }
  grpc::Status EchoLarge(grpc::ServerContext*, const pb::Large* in, pb::Large* out) override {
    return echo(*in, *out);
  }
  grpc::Status Finish(grpc::ServerContext*, const pb::FinishRequest*,
                      pb::FinishReply* reply) override {
    reply->set_corrupted(service_.finish());
    return grpc::Status::OK;
  }

 private:
  template <class T>
  grpc::Status echo(const T& in, T& out) {
    out = in;
    out.set_n2(service_.echo_n2(in.n2()));
    return grpc::Status::OK;
  }
  rpc::Service& service_;
};

}  // namespace

std::unique_ptr<Session> open_grpc(const DriveOptions& o) {
  return std::make_unique<GrpcSession>(o);
}

void serve_grpc(const ServeOptions& o, Service& service) {
  const HostPort hp = parse_host_port(o.endpoint);
  static BenchImpl impl(service);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(hp.host + ":" + std::to_string(hp.port),
                           grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(static_cast<int>(kMessageLimit));
  builder.SetMaxSendMessageSize(static_cast<int>(kMessageLimit));
  builder.RegisterService(&impl);
  static std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0)
    throw PeerError(ErrorKind::io, "grpc: cannot listen on " + o.endpoint);
  announce_ready(hp.host + ":" + std::to_string(port), mechanism_name(o.mechanism));
  wait_forever();
}

}  // namespace ipclab::rpc
