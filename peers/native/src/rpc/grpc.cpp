// gRPC (PROTOCOL.md 10.3): the stock synchronous C++ server and a blocking stub on one insecure
// channel. Message size limits are raised to kMessageLimit on both sides.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstring>

#include "frame.hpp"
#include "ipclab_grpc.grpc.pb.h"
#include "patterns.hpp"
#include "result.hpp"
#include "rpc/echo_session.hpp"
#include "rpc/fields.hpp"
#include "rpc/grpc_services.hpp"
#include "rpc/rpc.hpp"
#include "server.hpp"
#include "tally.hpp"

namespace ipclab::rpc {

namespace {

namespace pb = ::ipclab_grpc;

#define GRPC_TO_I(f, i) m.set_##f(r.n[i]);
#define GRPC_TO_S(f, i) m.set_##f(r.s[i]);
#define GRPC_TO_B(f, i) m.set_##f(r.b[i]);
#define GRPC_TO_D(f, i) m.set_##f(r.d[i]);
#define GRPC_TO_LI(f, i) m.mutable_##f()->Assign(r.li[i].begin(), r.li[i].end());
// Cleared first (a message converted into again, --records per-call): protobuf keeps the
// cleared strings and Add reuses them.
#define GRPC_TO_LS(f, i) \
  m.clear_##f();         \
  for (const auto& v : r.ls[i]) m.add_##f(v);
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

// An insecure channel with the raised size limits, connected before the warm-up, so no sample
// pays for the handshake.
std::shared_ptr<grpc::Channel> connect_channel(const DriveOptions& o) {
  const std::string target = to_string(endpoint_as<InetEndpoint>(o.endpoint));
  grpc::ChannelArguments args;
  // A connection of its own: channels with equal arguments would otherwise share one
  // subchannel, so the C connections of a load would be one (11.5.4).
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetMaxReceiveMessageSize(static_cast<int>(kMessageLimit));
  args.SetMaxSendMessageSize(static_cast<int>(kMessageLimit));
  auto channel = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
  if (!channel->WaitForConnected(std::chrono::system_clock::now() +
                                 std::chrono::nanoseconds(o.io_timeout_ns))) {
    // Refused: the channel is in TRANSIENT_FAILURE; still connecting (no HTTP/2 answer): a
    // wait past --io-timeout.
    if (channel->GetState(false) == GRPC_CHANNEL_TRANSIENT_FAILURE)
      throw PeerError(ErrorKind::io, "grpc: cannot connect to " + target);
    throw PeerError(ErrorKind::timeout, "grpc: no connection to " + target +
                                            " within --io-timeout");
  }
  return channel;
}

class GrpcSession final : public FrameworkSession<GrpcSession, GrpcRecords> {
 public:
  explicit GrpcSession(const DriveOptions& o)
      : timeout_(std::chrono::nanoseconds(o.io_timeout_ns)),
        channel_(connect_channel(o)),
        stub_(pb::Bench::NewStub(channel_)) {}

  std::uint8_t* prepare_call(std::uint32_t request_size, std::uint32_t wanted) override {
    request_.mutable_request()->resize(request_size);
    request_.set_wanted(wanted);
    return reinterpret_cast<std::uint8_t*>(request_.mutable_request()->data());
  }
  void call(std::uint64_t seq) override {
    request_.set_seq(seq);
    with_deadline([&](grpc::ClientContext* c) { return stub_->Call(c, request_, &reply_); });
  }
  std::uint8_t* prepare_put(std::uint32_t request_size) override {
    put_.mutable_request()->resize(request_size);
    return reinterpret_cast<std::uint8_t*>(put_.mutable_request()->data());
  }
  void put(std::uint64_t seq) override {
    put_.set_seq(seq);
    with_deadline([&](grpc::ClientContext* c) { return stub_->Put(c, put_, &empty_); });
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
  void invoke_put(const pb::Small& in) {
    with_deadline([&](grpc::ClientContext* c) { return stub_->PutSmall(c, in, &empty_); });
  }
  void invoke_put(const pb::Medium& in) {
    with_deadline([&](grpc::ClientContext* c) { return stub_->PutMedium(c, in, &empty_); });
  }
  void invoke_put(const pb::Large& in) {
    with_deadline([&](grpc::ClientContext* c) { return stub_->PutLarge(c, in, &empty_); });
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
  pb::PutRequest put_;
  google::protobuf::Empty empty_;
};

// Pattern stream over grpc (11.3) as a link of the frame patterns (links.hpp), so the stream's
// loop, windows, CPU figures and END_ACK checks are OneWayStream's (patterns.hpp): the messages
// become the Chunks of a client-streaming call with their sequence, each MARK ends the call
// before it (its ack is not checked: a server fault hits the second message of every call) and
// opens one for the messages it announces (none for a warm-up of 0), END half-closes the
// measured call and answers its StreamAck as the stream END_ACK. Write returns when gRPC has
// taken the message (its flow control), which is where a window ends. No deadline on the calls:
// --io-timeout bounds one wait, a deadline would bound the whole stream (a lost connection still
// ends the call, as UNAVAILABLE).
class GrpcStreamLink {
 public:
  explicit GrpcStreamLink(const DriveOptions& o)
      : channel_(connect_channel(o)), stub_(pb::Bench::NewStub(channel_)) {}

  static std::size_t capacity_for(std::size_t frame) { return frame; }
  void send_message(const std::uint8_t* p, std::size_t n, std::uint64_t seq) {
    if (!writer_) begin();
    chunk_.set_seq(seq);
    chunk_.set_data(p, n);
    if (!writer_->Write(chunk_)) end_call();  // the server ended the call: its status
  }
  // A control frame: MARK or END.
  void send(const std::uint8_t* frame, std::size_t n) {
    const std::uint64_t seq = load_le64(frame + kOffSequence);
    if (static_cast<FrameKind>(frame[kOffKind]) == FrameKind::mark) {
      if (writer_) end_call();
      if (n == kMarkSize && decode_mark(frame + kHeaderSize).count != 0) begin();
      answer(FrameKind::mark_ack, seq, 0);
      return;
    }
    if (!writer_) begin();
    const pb::StreamAck a = end_call();
    answer(FrameKind::end_ack, seq, kStreamAckPayload);
    const std::uint64_t fields[7] = {a.received(), a.gaps(),   a.checksum(),   a.user_ns(),
                                     a.sys_ns(),   a.voluntary(), a.involuntary()};
    for (int i = 0; i < 7; ++i) store_le64(answer_ + kHeaderSize + 8 * i, fields[i]);
  }
  std::size_t receive(std::uint8_t* buf, std::size_t, std::size_t) {
    std::memcpy(buf, answer_, answer_size_);
    return answer_size_;
  }

 private:
  void begin() {
    context_ = std::make_unique<grpc::ClientContext>();
    writer_ = stub_->Stream(context_.get(), &ack_);
  }
  pb::StreamAck end_call() {
    writer_->WritesDone();
    const grpc::Status s = writer_->Finish();
    writer_.reset();
    if (!s.ok()) throw_status(s);
    return ack_;
  }
  void answer(FrameKind kind, std::uint64_t seq, std::uint32_t length) {
    encode_header(answer_, kind, seq, length, 0);
    answer_size_ = kHeaderSize + length;
  }

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<pb::Bench::Stub> stub_;
  std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<grpc::ClientWriter<pb::Chunk>> writer_;
  pb::Chunk chunk_;
  pb::StreamAck ack_;
  std::uint8_t answer_[kStreamAckSize] = {};
  std::size_t answer_size_ = 0;
};

// The synchronous service: each call on a thread of gRPC's own pool (server model "sync").
class BenchImpl final : public pb::Bench::Service {
 public:
  BenchImpl(rpc::Service& service, StreamTally::Fault fault)
      : unary_(service), stream_fault_(fault) {}
  grpc::Status Call(grpc::ServerContext*, const pb::CallRequest* req,
                    pb::CallReply* reply) override {
    unary_.call(*req, *reply);
    return grpc::Status::OK;
  }
  // One streaming call (11.3): the counts and the CPU figures start with the call, the gaps
  // with its first message's sequence; the ack answers the client's half-close.
  grpc::Status Stream(grpc::ServerContext*, grpc::ServerReader<pb::Chunk>* reader,
                      pb::StreamAck* ack) override {
    StreamTally tally(stream_fault_);
    tally.restart(0);
    pb::Chunk chunk;
    for (bool first = true; reader->Read(&chunk); first = false) {
      if (first) tally.expect(chunk.seq());
      const std::string& d = chunk.data();
      tally.add(chunk.seq(), reinterpret_cast<const std::uint8_t*>(d.data()), d.size());
    }
    std::uint64_t f[7];
    tally.ack_fields(f);
    ack->set_received(f[0]);
    ack->set_gaps(f[1]);
    ack->set_checksum(f[2]);
    ack->set_user_ns(f[3]);
    ack->set_sys_ns(f[4]);
    ack->set_voluntary(f[5]);
    ack->set_involuntary(f[6]);
    return grpc::Status::OK;
  }
  grpc::Status EchoSmall(grpc::ServerContext*, const pb::Small* in, pb::Small* out) override {
    return ok([&] { unary_.echo(*in, *out); });
  }
  grpc::Status EchoMedium(grpc::ServerContext*, const pb::Medium* in, pb::Medium* out) override {
    return ok([&] { unary_.echo(*in, *out); });
  }
  grpc::Status EchoLarge(grpc::ServerContext*, const pb::Large* in, pb::Large* out) override {
    return ok([&] { unary_.echo(*in, *out); });
  }
  grpc::Status Put(grpc::ServerContext*, const pb::PutRequest* req,
                   google::protobuf::Empty*) override {
    return ok([&] { unary_.put(*req); });
  }
  grpc::Status PutSmall(grpc::ServerContext*, const pb::Small*, google::protobuf::Empty*) override {
    return grpc::Status::OK;
  }
  grpc::Status PutMedium(grpc::ServerContext*, const pb::Medium*,
                         google::protobuf::Empty*) override {
    return grpc::Status::OK;
  }
  grpc::Status PutLarge(grpc::ServerContext*, const pb::Large*, google::protobuf::Empty*) override {
    return grpc::Status::OK;
  }
  grpc::Status Finish(grpc::ServerContext*, const pb::FinishRequest*,
                      pb::FinishReply* reply) override {
    return ok([&] { unary_.finish(*reply); });
  }

 private:
  template <class F>
  static grpc::Status ok(F&& f) {
    f();
    return grpc::Status::OK;
  }
  grpc_services::Unary unary_;
  StreamTally::Fault stream_fault_;
};

}  // namespace

std::unique_ptr<Session> open_grpc(const DriveOptions& o) {
  return std::make_unique<GrpcSession>(o);
}

void stream_grpc(const DriveOptions& o, Recorder& recorder) {
  GrpcStreamLink link(o);
  OneWayStream::run(link, o, recorder);
}

void serve_grpc(const ServeOptions& o, Service& service) {
  const InetEndpoint& hp = endpoint_as<InetEndpoint>(o.endpoint);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(hp.host + ":" + std::to_string(hp.port),
                           grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(static_cast<int>(kMessageLimit));
  builder.SetMaxSendMessageSize(static_cast<int>(kMessageLimit));
  if (o.load && o.server_model == "callback") {
    static grpc_services::CallbackImpl callback(service);
    builder.RegisterService(&callback);
  } else {
    static BenchImpl impl(service, stream_fault_of(o.fault));
    builder.RegisterService(&impl);
  }
  static std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0)
    throw PeerError(ErrorKind::io, "grpc: cannot listen on " + o.endpoint_text);
  announce_ready(hp.host + ":" + std::to_string(port), o.mechanism_name, ready_extra(o));
  wait_forever();
}

}  // namespace ipclab::rpc
