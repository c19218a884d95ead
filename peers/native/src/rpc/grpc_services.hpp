// The gRPC service's unary operations (PROTOCOL.md 10.1) written once, and the callback service
// built on them (server model "callback" of 11.5.4); grpc.cpp's synchronous service uses the
// same operations. Included by grpc.cpp alone.
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <string>

#include "ipclab_grpc.grpc.pb.h"
#include "rpc/rpc.hpp"

namespace ipclab::rpc::grpc_services {

namespace pb = ::ipclab_grpc;

// The unary operations of 10.1, shared by the synchronous service and the callback one.
class Unary {
 public:
  explicit Unary(::ipclab::rpc::Service& service) : service_(service) {}
  void call(const pb::CallRequest& req, pb::CallReply& reply) {
    std::string* out = reply.mutable_response();
    out->resize(req.wanted());
    service_.call(req.seq(), req.wanted(),
                  reinterpret_cast<const std::uint8_t*>(req.request().data()),
                  req.request().size(), reinterpret_cast<std::uint8_t*>(out->data()));
  }
  template <class T>
  void echo(const T& in, T& out) {
    out = in;
    out.set_n2(service_.echo_n2(in.n2()));
  }
  void put(const pb::PutRequest& req) {
    service_.put(req.seq(), reinterpret_cast<const std::uint8_t*>(req.request().data()),
                 req.request().size());
  }
  void finish(pb::FinishReply& reply) { reply.set_corrupted(service_.finish()); }

 private:
  ::ipclab::rpc::Service& service_;
};

// The callback service (server model "callback", load only, 11.5.4): each unary call answered
// on the thread gRPC's completion queue delivered it on, no handler pool. Its streaming call is
// not implemented (the load pattern does not use it).
class CallbackImpl final : public pb::Bench::CallbackService {
 public:
  explicit CallbackImpl(rpc::Service& service) : unary_(service) {}
  grpc::ServerUnaryReactor* Call(grpc::CallbackServerContext* c, const pb::CallRequest* req,
                                 pb::CallReply* reply) override {
    return done(c, [&] { unary_.call(*req, *reply); });
  }
  grpc::ServerUnaryReactor* EchoSmall(grpc::CallbackServerContext* c, const pb::Small* in,
                                      pb::Small* out) override {
    return done(c, [&] { unary_.echo(*in, *out); });
  }
  grpc::ServerUnaryReactor* EchoMedium(grpc::CallbackServerContext* c, const pb::Medium* in,
                                       pb::Medium* out) override {
    return done(c, [&] { unary_.echo(*in, *out); });
  }
  grpc::ServerUnaryReactor* EchoLarge(grpc::CallbackServerContext* c, const pb::Large* in,
                                      pb::Large* out) override {
    return done(c, [&] { unary_.echo(*in, *out); });
  }
  grpc::ServerUnaryReactor* Put(grpc::CallbackServerContext* c, const pb::PutRequest* req,
                                google::protobuf::Empty*) override {
    return done(c, [&] { unary_.put(*req); });
  }
  grpc::ServerUnaryReactor* PutSmall(grpc::CallbackServerContext* c, const pb::Small*,
                                     google::protobuf::Empty*) override {
    return done(c, [] {});
  }
  grpc::ServerUnaryReactor* PutMedium(grpc::CallbackServerContext* c, const pb::Medium*,
                                      google::protobuf::Empty*) override {
    return done(c, [] {});
  }
  grpc::ServerUnaryReactor* PutLarge(grpc::CallbackServerContext* c, const pb::Large*,
                                     google::protobuf::Empty*) override {
    return done(c, [] {});
  }
  grpc::ServerUnaryReactor* Finish(grpc::CallbackServerContext* c, const pb::FinishRequest*,
                                   pb::FinishReply* reply) override {
    return done(c, [&] { unary_.finish(*reply); });
  }

 private:
  template <class F>
  static grpc::ServerUnaryReactor* done(grpc::CallbackServerContext* c, F&& f) {
    f();
    grpc::ServerUnaryReactor* reactor = c->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
  Unary unary_;
};

}  // namespace ipclab::rpc::grpc_services
