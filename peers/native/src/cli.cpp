#include "cli.hpp"

#include <map>

#include "error.hpp"
#include "frame.hpp"
#include "mechanisms.hpp"
#include "numbers.hpp"

namespace ipclab {

namespace {

// Flags without a value (section 1's synopsis: [--void], [--one-way]); collected as "on".
bool is_switch(const std::string& name) { return name == "--void" || name == "--one-way"; }

// Collects "--name value" pairs and switches, rejecting unknown, repeated and value-less flags.
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
    if (flags.count(name) != 0) throw UsageError("flag " + name + " given more than once");
    if (is_switch(name)) {
      flags[name] = "on";
      --i;  // no value
      continue;
    }
    if (i + 1 >= args.size()) throw UsageError("flag " + name + " needs a value");
    flags[name] = args[i + 1];
  }
  return flags;
}

// A two-valued flag: true for its first value (the default), false for the second.
bool choice(const std::map<std::string, std::string>& flags, const std::string& name,
            const char* first, const char* second) {
  const auto it = flags.find(name);
  if (it == flags.end() || it->second == first) return true;
  if (it->second == second) return false;
  throw UsageError("bad value for " + name + ": '" + it->second + "' (" + first + ", " + second +
                   ")");
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

std::string nonempty_path(const std::map<std::string, std::string>& flags,
                          const std::string& name) {
  const std::string& path = required(flags, name);
  if (path.empty()) throw UsageError("bad value for " + name + ": empty path");
  return path;
}

// The flags both roles share; the endpoint is parsed once the rest is known.
void parse_common(const std::map<std::string, std::string>& flags, PeerOptions& o) {
  o.mechanism_name = required(flags, "--mechanism");
  o.mechanism = find_mechanism(o.mechanism_name);
  o.endpoint_text = required(flags, "--endpoint");
  if (auto it = flags.find("--seed"); it != flags.end())
    o.seed = parse_unsigned("--seed", it->second, UINT64_MAX);
  if (auto it = flags.find("--poll-interval-us"); it != flags.end())
    o.poll_interval_us = parse_poll_interval(it->second);
  if (auto it = flags.find("--spin-us"); it != flags.end())
    o.spin_us = parse_unsigned("--spin-us", it->second, 1'000'000'000);
  o.nodelay = choice(flags, "--nodelay", "on", "off");
  o.persistent = !choice(flags, "--delivery", "non-persistent", "persistent");
  o.delivery_given = flags.count("--delivery") != 0;
}

// The flags of contract 3's studies (section 1); what a mechanism cannot do with them is
// unsupported later (check_supported), what a pattern cannot is a usage error here.
void parse_studies(const std::map<std::string, std::string>& flags, DriveOptions& o) {
  o.void_call = flags.count("--void") != 0;
  o.one_way = flags.count("--one-way") != 0;
  o.rest_json = !choice(flags, "--rest-body", "octet", "json");
  o.corba_string = !choice(flags, "--corba-payload", "octets", "string");
  if (o.void_call && o.pattern != "rr") throw UsageError("flag --void needs --pattern rr");
  if (o.void_call && o.response_size != 0)
    throw UsageError("bad value for --response-size: must be 0 with --void");
  if (o.one_way && o.pattern != "short") throw UsageError("flag --one-way needs --pattern short");
  if (o.one_way && o.response_size != 0)
    throw UsageError("bad value for --response-size: must be 0 with --one-way");
}

// Contract 6's condition flags (section 1). What a pattern or payload cannot take is a usage
// error here; a mechanism that cannot honour a value is unsupported later (check_studies).
void parse_conditions(const std::map<std::string, std::string>& flags, DriveOptions& o) {
  o.source_rotate = choice(flags, "--source", "rotate", "one");
  if (flags.count("--source") != 0 && o.pattern != "short")
    throw UsageError("flag --source needs --pattern short");
  if (!choice(flags, "--value-range", "full", "non-negative"))
    o.value_range = ValueRange::non_negative;
  o.records_per_call = !choice(flags, "--records", "one", "per-call");
  if (o.payload == PayloadKind::bytes) {
    if (o.value_range != ValueRange::full)
      throw UsageError("bad value for --value-range: non-negative needs a structured --payload");
    if (o.records_per_call)
      throw UsageError("bad value for --records: per-call needs a structured --payload");
  }
  o.mock_new_array = !choice(flags, "--mock", "copy", "new-array");
}

// burst (11.4): a server model and what goes with it; those flags alone are a usage error.
// load (11.5.1): `--pattern load` (the only pattern `serve` takes) makes the server a load
// server, which has no connection count and writes no phases file.
void parse_burst_serve(const std::map<std::string, std::string>& flags, ServeOptions& o) {
  if (auto p = flags.find("--pattern"); p != flags.end()) {
    if (p->second != "load")
      throw UsageError("bad value for --pattern: '" + p->second + "' (serve takes only load)");
    o.load = true;
  }
  const auto it = flags.find("--server-model");
  if (it == flags.end()) {
    for (const char* flag : {"--connections", "--phases-file", "--workers", "--pattern"})
      if (flags.count(flag) != 0)
        throw UsageError(std::string("flag ") + flag + " needs --server-model");
    return;
  }
  if (it->second.empty()) throw UsageError("bad value for --server-model: empty");
  o.server_model = it->second;
  if (o.load) {
    for (const char* flag : {"--connections", "--phases-file"})
      if (flags.count(flag) != 0)
        throw UsageError(std::string("flag ") + flag + " is not used with --pattern load");
  } else {
    o.connections = parse_unsigned("--connections", required(flags, "--connections"), UINT64_MAX);
    if (o.connections == 0) throw UsageError("bad value for --connections: must be at least 1");
    o.phases_file = nonempty_path(flags, "--phases-file");
  }
  if (auto w = flags.find("--workers"); w != flags.end())
    o.workers = static_cast<std::uint32_t>(parse_unsigned("--workers", w->second, 1024));
  if (flags.count("--workers") != 0 && o.workers == 0)
    throw UsageError("bad value for --workers: 1 ... 1024");
}

// --backlog: the listen() backlog of every server that listens (the burst and load models;
// since contract 6 the rr server over tcp and uds too). Remembered, not inferred from the value:
// a server that takes no backlog refuses it even when it is the default (11.5.4, 11.5.5).
void parse_backlog(const std::map<std::string, std::string>& flags, ServeOptions& o) {
  o.backlog_given = flags.count("--backlog") != 0;
  if (auto b = flags.find("--backlog"); b != flags.end())
    o.backlog = static_cast<std::uint32_t>(parse_unsigned("--backlog", b->second, 65535));
  if (o.backlog == 0) throw UsageError("bad value for --backlog: 1 ... 65535");
}

ServeOptions parse_serve(const std::vector<std::string>& args) {
  const auto flags = collect_flags(args, {"--mechanism", "--endpoint", "--seed", "--fault",
                                          "--poll-interval-us", "--spin-us", "--server-model",
                                          "--connections", "--phases-file", "--backlog",
                                          "--workers", "--nodelay", "--pattern",
                                          "--delivery", "--read-size"});
  ServeOptions o;
  parse_common(flags, o);
  o.nodelay_given = flags.count("--nodelay") != 0;
  parse_burst_serve(flags, o);
  parse_backlog(flags, o);
  // 0 (greedy, as before) ... MAX_PAYLOAD; a server that cannot honour it: unsupported later.
  if (auto it = flags.find("--read-size"); it != flags.end())
    o.read_size =
        static_cast<std::uint32_t>(parse_unsigned("--read-size", it->second, kMaxPayload));
  if (auto it = flags.find("--fault"); it != flags.end()) {
    if (it->second == "none") o.fault = Fault::none;
    else if (it->second == "flip-response-byte") o.fault = Fault::flip_response_byte;
    else if (it->second == "drop-stream-message") o.fault = Fault::drop_stream_message;
    else if (it->second == "flip-stream-byte") o.fault = Fault::flip_stream_byte;
    else if (it->second == "stall") o.fault = Fault::stall;
    else if (it->second.rfind("capacity:", 0) == 0) {  // a server that cannot: unsupported later
      o.fault = Fault::capacity;
      o.capacity_per_s = parse_unsigned("--fault capacity:N", it->second.substr(9), UINT64_MAX);
      if (o.capacity_per_s == 0) throw UsageError("bad value for --fault capacity:N: N >= 1");
    } else
      throw UsageError("bad value for --fault: '" + it->second +
                       "' (none, flip-response-byte, drop-stream-message, flip-stream-byte, "
                       "stall, capacity:N)");
  }
  // A mechanism without a server is unsupported later, whatever its endpoint.
  if (o.mechanism != nullptr && o.mechanism->serve != nullptr)
    o.endpoint = parse_endpoint(o.mechanism->serve_endpoint, o.endpoint_text);
  return o;
}

void parse_sizes(const std::map<std::string, std::string>& flags, DriveOptions& o) {
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
    // --void and --one-way have no response: --response-size absent is 0 (parse_studies).
    const bool no_response = flags.count("--void") != 0 || flags.count("--one-way") != 0;
    if (!no_response || flags.count("--response-size") != 0)
      o.response_size = static_cast<std::uint32_t>(
          parse_unsigned("--response-size", required(flags, "--response-size"), kMaxPayload));
    return;
  }
  // A structured record has no byte sizes: absent or 0 (section 1).
  for (const char* flag : {"--request-size", "--response-size"})
    if (auto it = flags.find(flag);
        it != flags.end() && parse_unsigned(flag, it->second, kMaxPayload) != 0)
      throw UsageError(std::string("bad value for ") + flag +
                       ": must be absent or 0 with --payload " + payload_kind_name(o.payload));
}

void parse_counts(const std::map<std::string, std::string>& flags, DriveOptions& o) {
  o.iterations = parse_unsigned("--iterations", required(flags, "--iterations"), UINT64_MAX);
  if (o.iterations == 0) throw UsageError("bad value for --iterations: must be at least 1");
  if (auto it = flags.find("--warmup"); it != flags.end())
    o.warmup = parse_unsigned("--warmup", it->second, UINT64_MAX);
  // Sequences run from 0 to warmup + iterations (the END frame): all must fit in a u64.
  if (o.warmup >= UINT64_MAX - o.iterations)
    throw UsageError("bad value for --warmup: warmup + iterations overflows the sequence");
}

// stream (11.1): its own sizes and counts; the rr ones are a usage error with it.
void parse_stream(const std::map<std::string, std::string>& flags, DriveOptions& o) {
  for (const char* flag : {"--request-size", "--response-size", "--iterations", "--payload",
                           "--sequence-length", "--warmup-samples-file"})
    if (flags.count(flag) != 0)
      throw UsageError(std::string("flag ") + flag + " is not used with --pattern stream");
  o.message_size = static_cast<std::uint32_t>(
      parse_unsigned("--message-size", required(flags, "--message-size"), kMaxPayload));
  if (o.message_size == 0)  // a message is its bytes: there is no empty one (11.1)
    throw UsageError("bad value for --message-size: 1 ... " + std::to_string(kMaxPayload));
  o.messages = parse_unsigned("--messages", required(flags, "--messages"), UINT64_MAX);
  if (o.messages == 0) throw UsageError("bad value for --messages: must be at least 1");
  o.windows = o.messages < 10 ? o.messages : 10;  // min(10, N)
  if (auto it = flags.find("--windows"); it != flags.end())
    o.windows = parse_unsigned("--windows", it->second, UINT64_MAX);
  if (o.windows == 0 || o.windows > o.messages)
    throw UsageError("bad value for --windows: 1 ... --messages (" + std::to_string(o.messages) +
                     ")");
  if (auto it = flags.find("--warmup"); it != flags.end())
    o.warmup = parse_unsigned("--warmup", it->second, UINT64_MAX);
  // Sequences run from 0 to warmup + 1 + messages + 1 (MARK, then END).
  if (o.warmup >= UINT64_MAX - 2 - o.messages)
    throw UsageError("bad value for --warmup: warmup + messages overflows the sequence");
}

// burst and load: --request-size and --response-size are optional (burst: 1000 and 8, the
// paper's request and acknowledgement; load: 16 and 16, PROTOCOL.md 11.5.3).
void parse_optional_sizes(const std::map<std::string, std::string>& flags, DriveOptions& o,
                          std::uint32_t request, std::uint32_t response) {
  o.request_size = request;
  o.response_size = response;
  if (auto it = flags.find("--request-size"); it != flags.end())
    o.request_size = static_cast<std::uint32_t>(
        parse_unsigned("--request-size", it->second, kMaxPayload));
  if (auto it = flags.find("--response-size"); it != flags.end())
    o.response_size = static_cast<std::uint32_t>(
        parse_unsigned("--response-size", it->second, kMaxPayload));
}

// A number flag in lo ... hi.
std::uint64_t ranged(const std::map<std::string, std::string>& flags, const std::string& name,
                     std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t v = parse_unsigned(name, required(flags, name), hi);
  if (v < lo)
    throw UsageError("bad value for " + name + ": " + std::to_string(lo) + " ... " +
                     std::to_string(hi));
  return v;
}

// burst's release, load's T0 (11.4.4, 11.5.3): the wall clock's ns since the epoch; at most
// INT64_MAX (year 2262): a signed timespec.
void parse_release_at(const std::map<std::string, std::string>& flags, DriveOptions& o) {
  const auto it = flags.find("--release-at");
  if (it == flags.end()) return;
  o.release_at_ns =
      static_cast<std::int64_t>(parse_unsigned("--release-at", it->second, INT64_MAX));
  if (o.release_at_ns == 0)
    throw UsageError("bad value for --release-at: '0' (CLOCK_REALTIME ns, at least 1)");
}

// load (11.5.2): the schedule's flags; the round-trip and stream counts are a usage error.
void parse_load(const std::map<std::string, std::string>& flags, DriveOptions& o) {
  for (const char* flag : {"--iterations", "--warmup", "--warmup-samples-file", "--payload",
                           "--sequence-length", "--message-size", "--messages", "--windows"})
    if (flags.count(flag) != 0)
      throw UsageError(std::string("flag ") + flag + " is not used with --pattern load");
  parse_optional_sizes(flags, o, 16, 16);
  o.clients = static_cast<std::uint32_t>(ranged(flags, "--clients", 1, 1024));
  o.rate = ranged(flags, "--rate", 1, 10'000'000);
  o.duration_ms = ranged(flags, "--duration-ms", 1, 3'600'000);
  if (flags.count("--warmup-ms") != 0) o.warmup_ms = ranged(flags, "--warmup-ms", 0, 3'600'000);
  o.poisson = !choice(flags, "--arrival", "fixed", "poisson");
  o.records_file = nonempty_path(flags, "--records-file");
  parse_release_at(flags, o);
}

// A pattern's own flags given with another pattern: a usage error.
void check_pattern_flags(const std::map<std::string, std::string>& flags, const DriveOptions& o) {
  if (o.pattern != "burst")
    for (const char* flag : {"--connections", "--connectors", "--processes"})
      if (flags.count(flag) != 0)
        throw UsageError(std::string("flag ") + flag + " needs --pattern burst");
  if (o.pattern != "load")
    for (const char* flag : {"--clients", "--rate", "--arrival", "--duration-ms", "--warmup-ms"})
      if (flags.count(flag) != 0)
        throw UsageError(std::string("flag ") + flag + " needs --pattern load");
  if (o.pattern != "burst" && o.pattern != "load")
    for (const char* flag : {"--records-file", "--release-at"})
      if (flags.count(flag) != 0)
        throw UsageError(std::string("flag ") + flag + " needs --pattern burst or load");
}

// Load over sysv-mq names both its queues, request queue first (11.5.5); every other use of a
// System V key takes one.
void check_key_count(const DriveOptions& o) {
  const auto* key = std::get_if<KeyEndpoint>(&o.endpoint);
  if (key == nullptr) return;
  const bool two = o.pattern == "load" && o.mechanism_name == "sysv-mq";
  const std::string bad = "bad value for --endpoint: '" + o.endpoint_text + "' ";
  if (two && key->reply_key == 0)
    throw UsageError(bad + "(load over sysv-mq takes sysv:0x<request key>,0x<reply key>)");
  if (!two && key->reply_key != 0)
    throw UsageError(bad + "(two keys name load's queues over sysv-mq only)");
}

// burst (11.4): connections, connectors, processes; the round-trip counts are a usage error.
void parse_burst(const std::map<std::string, std::string>& flags, DriveOptions& o) {
  for (const char* flag : {"--iterations", "--warmup", "--warmup-samples-file", "--payload",
                           "--sequence-length"})
    if (flags.count(flag) != 0)
      throw UsageError(std::string("flag ") + flag + " is not used with --pattern burst");
  parse_optional_sizes(flags, o, 1000, 8);
  o.connections = parse_unsigned("--connections", required(flags, "--connections"), UINT64_MAX);
  if (o.connections == 0) throw UsageError("bad value for --connections: must be at least 1");
  o.iterations = o.connections;
  o.connectors = static_cast<std::uint32_t>(
      parse_unsigned("--connectors", required(flags, "--connectors"), 10000));
  if (o.connectors == 0) throw UsageError("bad value for --connectors: 1 ... 10000");
  if (auto it = flags.find("--processes"); it != flags.end())
    o.processes = static_cast<std::uint32_t>(parse_unsigned("--processes", it->second, 64));
  if (o.processes == 0) throw UsageError("bad value for --processes: 1 ... 64");
  o.records_file = nonempty_path(flags, "--records-file");
  parse_release_at(flags, o);
}

DriveOptions parse_drive(const std::vector<std::string>& args) {
  const auto flags = collect_flags(
      args, {"--mechanism", "--endpoint", "--request-size", "--response-size", "--iterations",
             "--samples-file", "--result-file", "--pattern", "--warmup", "--warmup-samples-file",
             "--seed", "--io-timeout", "--poll-interval-us", "--spin-us", "--native-library",
             "--payload", "--sequence-length", "--message-size", "--messages", "--windows",
             "--connections", "--connectors", "--processes", "--records-file", "--void",
             "--nodelay", "--rest-body", "--corba-payload", "--one-way", "--clients", "--rate",
             "--arrival", "--duration-ms", "--warmup-ms", "--delivery", "--release-at",
             "--source", "--value-range", "--records", "--mock"});
  DriveOptions o;
  parse_common(flags, o);
  if (auto it = flags.find("--pattern"); it != flags.end()) o.pattern = it->second;
  check_pattern_flags(flags, o);
  if (o.pattern == "load") {
    parse_load(flags, o);
  } else if (o.pattern == "burst") {
    for (const char* flag : {"--message-size", "--messages", "--windows"})
      if (flags.count(flag) != 0)
        throw UsageError(std::string("flag ") + flag + " is not used with --pattern burst");
    parse_burst(flags, o);
  } else if (o.pattern == "stream") {
    parse_stream(flags, o);
  } else {
    for (const char* flag : {"--message-size", "--messages", "--windows"})
      if (flags.count(flag) != 0)
        throw UsageError(std::string("flag ") + flag + " needs --pattern stream");
    parse_sizes(flags, o);
    parse_counts(flags, o);
  }
  parse_studies(flags, o);
  parse_conditions(flags, o);
  o.samples_file = nonempty_path(flags, "--samples-file");
  o.result_file = nonempty_path(flags, "--result-file");
  if (flags.count("--warmup-samples-file") != 0)
    o.warmup_samples_file = nonempty_path(flags, "--warmup-samples-file");
  if (auto it = flags.find("--io-timeout"); it != flags.end())
    o.io_timeout_ns = parse_seconds_ns("--io-timeout", it->second);
  if (flags.count("--native-library") != 0)
    o.native_library = nonempty_path(flags, "--native-library");
  if (o.mechanism != nullptr) {
    if (o.mechanism->needs_native_library && o.native_library.empty())
      throw UsageError("missing required flag --native-library (mechanism " + o.mechanism_name +
                       ")");
    o.endpoint = parse_endpoint(o.mechanism->drive_endpoint, o.endpoint_text);
    check_key_count(o);
  }
  return o;
}

}  // namespace

Command parse_command_line(const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError("missing subcommand (capabilities, serve or drive)");
  if (args[0] == "capabilities") {
    if (args.size() > 1) throw UsageError("capabilities takes no arguments ('" + args[1] + "')");
    return CapabilitiesCommand{};
  }
  if (args[0] == "serve") return parse_serve(args);
  if (args[0] == "drive") return parse_drive(args);
  throw UsageError("unknown subcommand '" + args[0] + "' (capabilities, serve or drive)");
}

}  // namespace ipclab
