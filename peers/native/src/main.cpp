// ipclab-peer: the C++ peer of PROTOCOL.md.
//
//   ipclab-peer serve --mechanism M --endpoint E [--seed S] [--fault F] [--poll-interval-us N]
//   ipclab-peer drive --mechanism M --endpoint E --request-size N --response-size N ...
//
// Where things are:
//   cli.cpp           command line (section 1)          frame.cpp    24-byte header (section 2)
//   payload.cpp       splitmix64 payloads (section 3)   transport/   one file per mechanism (4);
//                                                       message.hpp: the 4.1 adapter, file.*: 4.2
//   lifecycle.cpp     signals, stdin EOF, cleanup (5)   server.cpp   `serve`
//   client.cpp        `drive`, timing (7)               result.cpp   READY, result, samples (5, 7)
//   record.cpp        structured payloads (10.2)        rpc/         RPC middleware (10): rpc.cpp the
//                                                       shared client loop and service, one file
//                                                       per framework
#include <exception>
#include <string>
#include <vector>

#include "cli.hpp"
#include "client.hpp"
#include "error.hpp"
#include "rpc/rpc.hpp"
#include "server.hpp"

int main(int argc, char** argv) {
  using namespace ipclab;
  rpc::install();
  const std::vector<std::string> args(argv + 1, argv + argc);
  Command command;
  try {
    command = parse_command_line(args);
  } catch (const UsageError& e) {
    print_line(std::string("usage: ") + e.what());
    return exit_code(ErrorKind::usage);
  }
  try {
    if (const auto* serve = std::get_if<ServeOptions>(&command)) return run_serve(*serve);
    return run_drive(std::get<DriveOptions>(command));
  } catch (const std::exception& e) {
    print_line(std::string("internal: ") + e.what());
    return exit_code(ErrorKind::internal);
  }
}
