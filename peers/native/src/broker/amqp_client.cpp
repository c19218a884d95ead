// The activemq client (PROTOCOL.md 4.7): the patterns of patterns.hpp (rr, stream) over
// AmqpLink, and the hooks main() installs.
#include "amqp.hpp"

#include "amqp_session.hpp"
#include "broker_hooks.hpp"
#include "error.hpp"
#include "options.hpp"
#include "patterns.hpp"

namespace ipclab::broker {

void serve(const ServeOptions& o);  // amqp_server.cpp

namespace {

void drive(const DriveOptions& o, Recorder& recorder) {
  AmqpLink link(endpoint_as<AmqpEndpoint>(o.endpoint), o.persistent, o.io_timeout_ns);
  run_pattern(link, o, recorder);
}

}  // namespace

void install() {
  BrokerHooks hooks;
  hooks.drive = drive;
  hooks.serve = serve;
  install_broker_hooks(hooks);
}

}  // namespace ipclab::broker
