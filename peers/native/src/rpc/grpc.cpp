// gRPC (PROTOCOL.md 10.3): the stock synchronous C++ server and a blocking stub on one insecure
// channel. Message size limits are raised to kMessageLimit on both sides.
#include <grpcpp/grpcpp.h>

#include <chrono>

#include "ipclab_grpc.grpc.pb.h"
#include "result.hpp"
#include "rpc/echo_session.hpp"
#include "rpc/fields.hpp"
#include "rpc/rpc.hpp"

namespace ipclab::rpc {

namespace {

namespace pb = ::ipclab_grpc;

#define GRPC_TO_I(f, i) m.set_##f(r.n[i]);
#define GRPC_TO_S(f, i) m.set_##f(r.s[i]);
#define GRPC_TO_B(f, i) m.set_##f(r.b[i]);
#define GRPC_TO_D(f, i) m.set_##f(r.d[i]);
#define GRPC_TO_LI(f, i) m.mutable_##f()->Assign(r.li[i].begin(), r.li[i].end());
#define GRPC_TO_LS(f, i) for (const auto& v : r.ls[i]) m.add_##f(v);
#define GRPC_TO_LD(f, i) m.mutable_##f()->Assign(r.ld[i].begin(), r.ld[i].end());
#define GRPC_FROM_I(f, i) r.n.push_back(m.f());
#define GRPC_FROM_S(f, i) r.s.push_back(m.f());
#define GRPC_FROM_B(f, i) r.b.push_back(m.f());
#define GRPC_FROM_D(f, i) r.d.push_back(m.f());
#define GRPC_FROM_LI(f, i) r.li.emplace_back(m.f().begin(), m.f().end());
#define GRPC_FROM_LS(f, i) r.ls.emplace_back(m.f().begin(), m.f().end());
#define GRPC_FROM_LD(f, i) r.ld.emplace_back(m.f().begin(), m.f().end());

struct GrpcRecords : RecordTypes<pb::Small, pb::Medium, pb::Large> {
  IPCLAB_CONVERSIONS(pb, GRPC)
  template <class T>
  static void set_n1(T& m, std::int32_t n1) {  // protobuf: a setter
    m.set_n1(n1);
  }
};

[[noreturn]] void throw_status(const grpc::Status& s) {
  const std::string text = "grpc: " + s.error_message() + " (status " +
                           std::to_string(static_cast<int>(s.error_code())) + ")";
  switch (s.error_code()) {
    case grpc::StatusCode::DEADLINE_EXCEEDED: throw PeerError(ErrorKind::timeout, text);
    case grpc::StatusCode::UNAVAILABLE: throw PeerError(ErrorKind::io, text);
    default: throw PeerError(ErrorKind::protocol, text);
  }
}

class GrpcSession final : public FrameworkSession<GrpcSession, GrpcRecords> {
 public:
  explicit GrpcSession(const DriveOptions& o) : timeout_(std::chrono::nanoseconds(o.io_timeout_ns)) {
    const std::string target = to_string(endpoint_as<InetEndpoint>(o.endpoint));
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(static_cast<int>(kMessageLimit));
    args.SetMaxSendMessageSize(static_cast<int>(kMessageLimit));
    channel_ = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
    // Connected before the warm-up, so no sample pays for the handshake.
    if (!channel_->WaitForConnected(std::chrono::system_clock::now() + timeout_)) {
      // Refused: the channel is in TRANSIENT_FAILURE; still connecting (no HTTP/2 answer): a
      // wait past --io-timeout.
      if (channel_->GetState(false) == GRPC_CHANNEL_TRANSIENT_FAILURE)
        throw PeerError(ErrorKind::io, "grpc: cannot connect to " + target);
      throw PeerError(ErrorKind::timeout, "grpc: no connection to " + target +
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
    with_deadline([&](grpc::ClientContext* c) { return stub_->Call(c, request_, &reply_); });
  }
  std::pair<const std::uint8_t*, std::size_t> response() override {
    const std::string& r = reply_.response();
    return {reinterpret_cast<const std::uint8_t*>(r.data()), r.size()};
  }
  std::uint64_t finish() override {
    pb::FinishRequest req;
    pb::FinishReply reply;
    with_deadline([&](grpc::ClientContext* c) { return stub_->Finish(c, req, &reply); });
    return reply.corrupted();
  }

  // The status is the error: a stub call throws nothing of its own.
  void invoke(const pb::Small& in, pb::Small& out) {
    with_deadline([&](grpc::ClientContext* c) { return stub_->EchoSmall(c, in, &out); });
  }
  void invoke(const pb::Medium& in, pb::Medium& out) {
    with_deadline([&](grpc::ClientContext* c) { return stub_->EchoMedium(c, in, &out); });
  }
  void invoke(const pb::Large& in, pb::Large& out) {
    with_deadline([&](grpc::ClientContext* c) { return stub_->EchoLarge(c, in, &out); });
  }
  [[noreturn]] static void rethrow(const char*) { throw; }

 private:
  // One stub call in a fresh context with the per-call deadline of 10.3.
  template <class Call>
  void with_deadline(Call call) const {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + timeout_);
    const grpc::Status s = call(&ctx);
    if (!s.ok()) throw_status(s);
  }

  std::chrono::nanoseconds timeout_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<pb::Bench::Stub> stub_;
  pb::CallRequest request_;
  pb::CallReply reply_;
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
  const InetEndpoint& hp = endpoint_as<InetEndpoint>(o.endpoint);
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
    throw PeerError(ErrorKind::io, "grpc: cannot listen on " + o.endpoint_text);
  announce_ready(hp.host + ":" + std::to_string(port), o.mechanism_name);
  wait_forever();
}

}  // namespace ipclab::rpc
