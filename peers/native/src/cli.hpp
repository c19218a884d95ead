// Strict command-line parsing of PROTOCOL.md section 1. Every mistake is a UsageError (exit 2);
// an unknown mechanism or pattern parses and is reported as unsupported later (exit 7).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "record.hpp"

namespace ipclab {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Mechanism { tcp, udp, uds, pipe, fifo, sysv_mq, posix_mq, sysv_shm, file, file_poll,
                       shm, shm_spin, shm_futex, none, direct,
                       rest, grpc, thrift_binary, thrift_compact, ice, corba, unknown };

// The POSIX shared-memory hand-off of section 4.3.
constexpr bool is_shm(Mechanism m) noexcept {
  return m == Mechanism::shm || m == Mechanism::shm_spin || m == Mechanism::shm_futex;
}

// The message channels of sections 4.1 and 4.3 (server --endpoint is the word "auto").
constexpr bool is_message_channel(Mechanism m) noexcept {
  return m == Mechanism::sysv_mq || m == Mechanism::posix_mq || m == Mechanism::sysv_shm ||
         is_shm(m);
}

// The in-process calls of section 4.4: drive only, client --endpoint is the word "inproc".
constexpr bool is_inproc(Mechanism m) noexcept {
  return m == Mechanism::none || m == Mechanism::direct;
}

// The RPC middleware of section 10 (framework protocols, no frames; structured payloads allowed).
constexpr bool is_rpc(Mechanism m) noexcept {
  return m == Mechanism::rest || m == Mechanism::grpc || m == Mechanism::thrift_binary ||
         m == Mechanism::thrift_compact || m == Mechanism::ice || m == Mechanism::corba;
}

Mechanism parse_mechanism(const std::string& name) noexcept;  // unknown if not implemented
const char* mechanism_name(Mechanism m) noexcept;

enum class Fault { none, flip_response_byte };

struct ServeOptions {
  std::string mechanism_name;
  Mechanism mechanism = Mechanism::unknown;
  std::string endpoint;
  std::uint64_t seed = 1;
  Fault fault = Fault::none;
  std::uint64_t poll_interval_us = 2000;
  std::uint64_t spin_us = 50;
};

struct DriveOptions {
  std::string mechanism_name;
  Mechanism mechanism = Mechanism::unknown;
  std::string endpoint;
  std::uint32_t request_size = 0;
  std::uint32_t response_size = 0;
  std::uint64_t iterations = 0;
  std::string samples_file;
  std::string result_file;
  std::string pattern = "rr";
  std::uint64_t warmup = 0;
  std::uint64_t seed = 1;
  std::int64_t io_timeout_ns = 30'000'000'000;
  std::uint64_t poll_interval_us = 2000;
  std::uint64_t spin_us = 50;
  std::string native_library;  // direct: path of libipclab_native.so
  PayloadKind payload = PayloadKind::bytes;
  std::uint32_t sequence_length = 5;  // structured payloads only
};

using Command = std::variant<ServeOptions, DriveOptions>;

// args excludes the program name: args[0] is the subcommand.
Command parse_command_line(const std::vector<std::string>& args);

// Number syntax of section 1; throw UsageError naming the flag.
std::uint64_t parse_unsigned(const std::string& flag, const std::string& value,
                             std::uint64_t max);
std::int64_t parse_seconds_ns(const std::string& flag, const std::string& value);

// Endpoint syntax per mechanism (section 4); throw UsageError.
struct HostPort {
  std::string host;
  std::uint16_t port = 0;
};
HostPort parse_host_port(const std::string& endpoint);
struct FdPair {
  int read_fd = -1;
  int write_fd = -1;
};
FdPair parse_fd_pair(const std::string& endpoint);
// Client endpoints of section 4.1: "sysv:0x1c1a1234" (any 32-bit hex key but 0) and
// "posix:/name" (the queue name prefix, one leading slash, no other).
std::int32_t parse_sysv_endpoint(const std::string& endpoint);
std::string parse_posix_endpoint(const std::string& endpoint);

}  // namespace ipclab
