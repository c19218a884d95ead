#include "cli.hpp"

#include <climits>
#include <map>

#include "frame.hpp"

namespace ipclab {

Mechanism parse_mechanism(const std::string& name) noexcept {
  if (name == "tcp") return Mechanism::tcp;
  if (name == "udp") return Mechanism::udp;
  if (name == "uds") return Mechanism::uds;
  if (name == "pipe") return Mechanism::pipe;
  if (name == "fifo") return Mechanism::fifo;
  if (name == "sysv-mq") return Mechanism::sysv_mq;
  if (name == "posix-mq") return Mechanism::posix_mq;
  if (name == "sysv-shm") return Mechanism::sysv_shm;
  if (name == "file") return Mechanism::file;
  if (name == "file-poll") return Mechanism::file_poll;
  if (name == "shm") return Mechanism::shm;
  if (name == "shm-spin") return Mechanism::shm_spin;
  if (name == "shm-futex") return Mechanism::shm_futex;
  if (name == "none") return Mechanism::none;
  if (name == "direct") return Mechanism::direct;
  if (name == "rest") return Mechanism::rest;
  if (name == "grpc") return Mechanism::grpc;
  if (name == "thrift-binary") return Mechanism::thrift_binary;
  if (name == "thrift-compact") return Mechanism::thrift_compact;
  if (name == "ice") return Mechanism::ice;
  if (name == "corba") return Mechanism::corba;
  return Mechanism::unknown;
}

const char* mechanism_name(Mechanism m) noexcept {
  switch (m) {
    case Mechanism::tcp: return "tcp";
    case Mechanism::udp: return "udp";
    case Mechanism::uds: return "uds";
    case Mechanism::pipe: return "pipe";
    case Mechanism::fifo: return "fifo";
    case Mechanism::sysv_mq: return "sysv-mq";
    case Mechanism::posix_mq: return "posix-mq";
    case Mechanism::sysv_shm: return "sysv-shm";
    case Mechanism::file: return "file";
    case Mechanism::file_poll: return "file-poll";
    case Mechanism::shm: return "shm";
    case Mechanism::shm_spin: return "shm-spin";
    case Mechanism::shm_futex: return "shm-futex";
    case Mechanism::none: return "none";
    case Mechanism::direct: return "direct";
    case Mechanism::rest: return "rest";
    case Mechanism::grpc: return "grpc";
    case Mechanism::thrift_binary: return "thrift-binary";
    case Mechanism::thrift_compact: return "thrift-compact";
    case Mechanism::ice: return "ice";
    case Mechanism::corba: return "corba";
    case Mechanism::unknown: break;
  }
  return "unknown";
}

std::uint64_t parse_unsigned(const std::string& flag, const std::string& value,
                             std::uint64_t max) {
  if (value.empty()) throw UsageError("bad value for " + flag + ": empty");
  std::uint64_t v = 0;
  for (char c : value) {
    if (c < '0' || c > '9')
      throw UsageError("bad value for " + flag + ": '" + value + "' is not an unsigned decimal");
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10)
      throw UsageError("bad value for " + flag + ": '" + value + "' overflows");
    v = v * 10 + d;
  }
  if (v > max)
    throw UsageError("bad value for " + flag + ": " + value + " is above " + std::to_string(max));
  return v;
}

std::int64_t parse_seconds_ns(const std::string& flag, const std::string& value) {
  // [0-9]+ ( "." [0-9]+ )?, positive; fractions below a nanosecond are dropped.
  const auto bad = [&](const char* why) {
    return UsageError("bad value for " + flag + ": '" + value + "' " + why);
  };
  const auto dot = value.find('.');
  const std::string whole = value.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : value.substr(dot + 1);
  if (whole.empty() || (dot != std::string::npos && frac.empty()))
    throw bad("is not a decimal number of seconds");
  for (char c : whole + frac)
    if (c < '0' || c > '9') throw bad("is not a decimal number of seconds");
  std::uint64_t secs = 0;
  for (char c : whole) {
    secs = secs * 10 + static_cast<std::uint64_t>(c - '0');
    if (secs > 1'000'000'000) throw bad("is too large");
  }
  std::int64_t ns = static_cast<std::int64_t>(secs) * 1'000'000'000;
  std::int64_t scale = 100'000'000;
  for (std::size_t i = 0; i < frac.size() && i < 9; ++i, scale /= 10)
    ns += (frac[i] - '0') * scale;
  if (ns <= 0) throw bad("must be positive");
  return ns;
}

HostPort parse_host_port(const std::string& endpoint) {
  const auto colon = endpoint.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == endpoint.size())
    throw UsageError("bad value for --endpoint: '" + endpoint + "' is not HOST:PORT");
  HostPort hp;
  hp.host = endpoint.substr(0, colon);
  if (hp.host.size() >= 2 && hp.host.front() == '[' && hp.host.back() == ']')
    hp.host = hp.host.substr(1, hp.host.size() - 2);  // [::1]:port
  if (hp.host.empty())
    throw UsageError("bad value for --endpoint: '" + endpoint + "' has an empty host");
  hp.port = static_cast<std::uint16_t>(
      parse_unsigned("--endpoint port", endpoint.substr(colon + 1), 65535));
  return hp;
}

FdPair parse_fd_pair(const std::string& endpoint) {
  const std::string bad = "bad value for --endpoint: '" + endpoint + "' is not fd:R,W";
  if (endpoint.rfind("fd:", 0) != 0) throw UsageError(bad);
  const auto comma = endpoint.find(',', 3);
  if (comma == std::string::npos) throw UsageError(bad);
  FdPair fds;
  try {
    fds.read_fd = static_cast<int>(parse_unsigned("--endpoint", endpoint.substr(3, comma - 3), INT_MAX));
    fds.write_fd = static_cast<int>(parse_unsigned("--endpoint", endpoint.substr(comma + 1), INT_MAX));
  } catch (const UsageError&) {
    throw UsageError(bad);
  }
  return fds;
}

std::int32_t parse_sysv_endpoint(const std::string& endpoint) {
  const std::string bad =
      "bad value for --endpoint: '" + endpoint + "' is not sysv:0x<hex key>";
  if (endpoint.rfind("sysv:0x", 0) != 0 && endpoint.rfind("sysv:0X", 0) != 0)
    throw UsageError(bad);
  const std::string hex = endpoint.substr(7);
  if (hex.empty() || hex.size() > 8) throw UsageError(bad);
  std::uint32_t key = 0;
  for (char c : hex) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else throw UsageError(bad);
    key = key * 16 + static_cast<std::uint32_t>(d);
  }
  if (key == 0) throw UsageError(bad + " (key 0 is IPC_PRIVATE)");
  return static_cast<std::int32_t>(key);
}

std::string parse_posix_endpoint(const std::string& endpoint) {
  const std::string bad =
      "bad value for --endpoint: '" + endpoint + "' is not posix:/<name>";
  if (endpoint.rfind("posix:/", 0) != 0) throw UsageError(bad);
  const std::string name = endpoint.substr(6);
  // NAME_MAX (255) minus the "-1" suffix; no slash after the first.
  if (name.size() < 2 || name.size() > 253 || name.find('/', 1) != std::string::npos)
    throw UsageError(bad);
  return name;
}

namespace {

// Collects "--name value" pairs, rejecting unknown, repeated and value-less flags.
std::map<std::string, std::string> collect_flags(const std::vector<std::string>& args,
                                                 const std::vector<std::string>& known) {
  std::map<std::string, std::string> flags;
  for (std::size_t i = 1; i < args.size(); i += 2) {
    const std::string& name = args[i];
    bool is_known = false;
    for (const auto& k : known) is_known = is_known || k == name;
    if (!is_known) {
      if (name.rfind("--", 0) == 0 && name.find('=') != std::string::npos)
        throw UsageError("unknown flag '" + name + "' (write --name value, not --name=value)");
      throw UsageError("unknown flag '" + name + "'");
    }
    if (i + 1 >= args.size()) throw UsageError("flag " + name + " needs a value");
    if (flags.count(name) != 0) throw UsageError("flag " + name + " given more than once");
    flags[name] = args[i + 1];
  }
  return flags;
}

std::uint64_t parse_poll_interval(const std::string& value) {
  const std::uint64_t v = parse_unsigned("--poll-interval-us", value, UINT64_MAX);
  if (v == 0) throw UsageError("bad value for --poll-interval-us: must be at least 1");
  return v;
}

const std::string& required(const std::map<std::string, std::string>& flags,
                            const std::string& name) {
  const auto it = flags.find(name);
  if (it == flags.end()) throw UsageError("missing required flag " + name);
  return it->second;
}

// Endpoint syntax is checked only for mechanisms this peer knows (others are unsupported).
void check_endpoint_syntax(Mechanism m, const std::string& endpoint, bool server) {
  if (is_message_channel(m) && server) {
    if (endpoint != "auto")
      throw UsageError("bad value for --endpoint: '" + endpoint + "' (the " + mechanism_name(m) +
                       " server takes the word auto)");
    return;
  }
  switch (m) {
    case Mechanism::tcp:
    case Mechanism::udp: parse_host_port(endpoint); break;
    case Mechanism::pipe: parse_fd_pair(endpoint); break;
    case Mechanism::sysv_mq:
    case Mechanism::sysv_shm: parse_sysv_endpoint(endpoint); break;
    case Mechanism::posix_mq:
    case Mechanism::shm:
    case Mechanism::shm_spin:
    case Mechanism::shm_futex: parse_posix_endpoint(endpoint); break;
    case Mechanism::none:
    case Mechanism::direct:
      // drive only: a server is refused as unsupported, whatever its endpoint
      if (!server && endpoint != "inproc")
        throw UsageError("bad value for --endpoint: '" + endpoint + "' (" + mechanism_name(m) +
                         " takes the word inproc)");
      break;
    case Mechanism::uds:
    case Mechanism::fifo:
    case Mechanism::file:
    case Mechanism::file_poll:
      if (endpoint.empty()) throw UsageError("bad value for --endpoint: empty path");
      break;
    case Mechanism::rest:
    case Mechanism::grpc:
    case Mechanism::thrift_binary:
    case Mechanism::thrift_compact:
    case Mechanism::ice: parse_host_port(endpoint); break;
    case Mechanism::corba:
      // The server listens on HOST:PORT; the client takes the server's stringified IOR.
      if (server) parse_host_port(endpoint);
      else if (endpoint.rfind("IOR:", 0) != 0)
        throw UsageError("bad value for --endpoint: '" + endpoint + "' is not IOR:...");
      break;
    case Mechanism::unknown: break;
  }
}

ServeOptions parse_serve(const std::vector<std::string>& args) {
  const auto flags = collect_flags(args, {"--mechanism", "--endpoint", "--seed", "--fault",
                                              "--poll-interval-us", "--spin-us"});
  ServeOptions o;
  o.mechanism_name = required(flags, "--mechanism");
  o.mechanism = parse_mechanism(o.mechanism_name);
  o.endpoint = required(flags, "--endpoint");
  if (auto it = flags.find("--seed"); it != flags.end())
    o.seed = parse_unsigned("--seed", it->second, UINT64_MAX);
  if (auto it = flags.find("--fault"); it != flags.end()) {
    if (it->second == "none") o.fault = Fault::none;
    else if (it->second == "flip-response-byte") o.fault = Fault::flip_response_byte;
    else throw UsageError("bad value for --fault: '" + it->second + "' (none, flip-response-byte)");
  }
  if (auto it = flags.find("--poll-interval-us"); it != flags.end())
    o.poll_interval_us = parse_poll_interval(it->second);
  if (auto it = flags.find("--spin-us"); it != flags.end())
    o.spin_us = parse_unsigned("--spin-us", it->second, 1'000'000'000);
  check_endpoint_syntax(o.mechanism, o.endpoint, true);
  return o;
}

DriveOptions parse_drive(const std::vector<std::string>& args) {
  const auto flags = collect_flags(
      args, {"--mechanism", "--endpoint", "--request-size", "--response-size", "--iterations",
             "--samples-file", "--result-file", "--pattern", "--warmup", "--seed",
             "--io-timeout", "--poll-interval-us", "--spin-us", "--native-library", "--payload",
             "--sequence-length"});
  DriveOptions o;
  o.mechanism_name = required(flags, "--mechanism");
  o.mechanism = parse_mechanism(o.mechanism_name);
  o.endpoint = required(flags, "--endpoint");
  if (auto it = flags.find("--payload"); it != flags.end()) {
    const auto kind = parse_payload_kind(it->second);
    if (!kind)
      throw UsageError("bad value for --payload: '" + it->second + "' (bytes, small, medium, large)");
    o.payload = *kind;
  }
  if (auto it = flags.find("--sequence-length"); it != flags.end())
    o.sequence_length =
        static_cast<std::uint32_t>(parse_unsigned("--sequence-length", it->second, 1'000'000));
  if (o.payload == PayloadKind::bytes) {
    o.request_size = static_cast<std::uint32_t>(
        parse_unsigned("--request-size", required(flags, "--request-size"), kMaxPayload));
    o.response_size = static_cast<std::uint32_t>(
        parse_unsigned("--response-size", required(flags, "--response-size"), kMaxPayload));
  } else {
    // A structured record has no byte sizes: absent or 0 (section 1).
    for (const char* flag : {"--request-size", "--response-size"})
      if (auto it = flags.find(flag); it != flags.end() &&
                                      parse_unsigned(flag, it->second, kMaxPayload) != 0)
        throw UsageError(std::string("bad value for ") + flag + ": must be absent or 0 with --payload " +
                         payload_kind_name(o.payload));
  }
  o.iterations = parse_unsigned("--iterations", required(flags, "--iterations"), UINT64_MAX);
  if (o.iterations == 0) throw UsageError("bad value for --iterations: must be at least 1");
  o.samples_file = required(flags, "--samples-file");
  o.result_file = required(flags, "--result-file");
  if (o.samples_file.empty()) throw UsageError("bad value for --samples-file: empty path");
  if (o.result_file.empty()) throw UsageError("bad value for --result-file: empty path");
  if (auto it = flags.find("--pattern"); it != flags.end()) o.pattern = it->second;
  if (auto it = flags.find("--warmup"); it != flags.end())
    o.warmup = parse_unsigned("--warmup", it->second, UINT64_MAX);
  // Sequences run from 0 to warmup + iterations (the END frame): all must fit in a u64.
  if (o.warmup >= UINT64_MAX - o.iterations)
    throw UsageError("bad value for --warmup: warmup + iterations overflows the sequence");
  if (auto it = flags.find("--seed"); it != flags.end())
    o.seed = parse_unsigned("--seed", it->second, UINT64_MAX);
  if (auto it = flags.find("--io-timeout"); it != flags.end())
    o.io_timeout_ns = parse_seconds_ns("--io-timeout", it->second);
  if (auto it = flags.find("--poll-interval-us"); it != flags.end())
    o.poll_interval_us = parse_poll_interval(it->second);
  if (auto it = flags.find("--spin-us"); it != flags.end())
    o.spin_us = parse_unsigned("--spin-us", it->second, 1'000'000'000);
  if (auto it = flags.find("--native-library"); it != flags.end()) {
    o.native_library = it->second;
    if (o.native_library.empty()) throw UsageError("bad value for --native-library: empty path");
  }
  if (o.mechanism == Mechanism::direct && o.native_library.empty())
    throw UsageError("missing required flag --native-library (mechanism direct)");
  check_endpoint_syntax(o.mechanism, o.endpoint, false);
  return o;
}

}  // namespace

Command parse_command_line(const std::vector<std::string>& args) {
  if (args.empty())
    throw UsageError("missing subcommand (serve or drive)");
  if (args[0] == "serve") return parse_serve(args);
  if (args[0] == "drive") return parse_drive(args);
  throw UsageError("unknown subcommand '" + args[0] + "' (serve or drive)");
}

}  // namespace ipclab
