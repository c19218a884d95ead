// activemq (PROTOCOL.md 4.7): the client and the responder over an ActiveMQ broker's queues,
// AMQP 1.0 through Qpid Proton C++. Built only where Proton is found (cmake/message_libraries.cmake); main()
// then installs the hooks (broker_hooks.hpp) that the table's row goes through.
#pragma once

namespace ipclab::broker {

void install();

}  // namespace ipclab::broker
