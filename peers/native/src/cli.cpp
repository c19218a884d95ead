#include "cli.hpp"

#include <string>
#include <string_view>

#include "cli_flags.hpp"
#include "error.hpp"
#include "frame.hpp"
#include "mechanisms.hpp"
#include "numbers.hpp"
#include "patterns.hpp"

namespace ipclab {

namespace {

std::uint64_t parse_poll_interval(const std::string& value) {
  const std::uint64_t v = parse_unsigned("--poll-interval-us", value, UINT64_MAX);
  if (v == 0) throw UsageError("bad value for --poll-interval-us: must be at least 1");
  return v;
}

// The flags both roles share; the endpoint is parsed once the rest is known.
void parse_common(const Flags& flags, PeerOptions& o) {
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
  o.sample_header_only = !choice(flags, "--sample-write", "full", "header");
}

// The flags of contract 3's studies (section 1); what a mechanism cannot do with them is
// unsupported later (check_supported), what a pattern cannot is a usage error (its row's own
// flags: --void rr's, --one-way short's; check_pattern_flags).
void parse_studies(const Flags& flags, DriveOptions& o) {
  o.void_call = flags.count("--void") != 0;
  o.one_way = flags.count("--one-way") != 0;
  o.rest_json = !choice(flags, "--rest-body", "octet", "json");
  o.corba_string = !choice(flags, "--corba-payload", "octets", "string");
  if (o.void_call && o.response_size != 0)
    throw UsageError("bad value for --response-size: must be 0 with --void");
  if (o.one_way && o.response_size != 0)
    throw UsageError("bad value for --response-size: must be 0 with --one-way");
}

// Contract 6's condition flags (section 1). What a payload cannot take is a usage error here
// (what a pattern cannot: --source is short's own, check_pattern_flags); a mechanism that
// cannot honour a value is unsupported later (check_studies).
void parse_conditions(const Flags& flags, DriveOptions& o) {
  o.source_rotate = choice(flags, "--source", "rotate", "one");
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

// The patterns a server model serves by name (`serve --pattern`: load), for the usage error.
std::string served_by_model() {
  std::string names;
  for (const PatternRow& row : Patterns::rows)
    if (row.command_line.served_by_model)
      names += (names.empty() ? "" : ", ") + std::string(row.name);
  return names;
}

// burst (11.4): a server model and what goes with it; those flags alone are a usage error.
// load (11.5.1): `--pattern load` (the only pattern `serve` takes: served_by_model in its row)
// makes the server a load server, which has no connection count and writes no phases file.
void parse_burst_serve(const Flags& flags, ServeOptions& o) {
  const auto p = flags.find("--pattern");
  if (p != flags.end()) {
    const PatternRow* row = Patterns::find(p->second);
    if (row == nullptr || !row->command_line.served_by_model)
      throw UsageError("bad value for --pattern: '" + p->second + "' (serve takes only " +
                       served_by_model() + ")");
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
        throw UsageError(std::string("flag ") + flag + " is not used with --pattern " + p->second);
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
void parse_backlog(const Flags& flags, ServeOptions& o) {
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
                                          "--delivery", "--read-size", "--sample-write"});
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

// A pattern not in the table parses as the round trips do and owns no flag; `drive` reports it
// unsupported later (exit 7).
constexpr PatternRow kUnknownPattern = {"", {{}, {}, parse_round_trip_flags}};

// The patterns owning a flag, for its usage error: "burst or load".
std::string owners(std::string_view flag) {
  std::string names;
  for (const PatternRow& row : Patterns::rows)
    for (const std::string_view own : row.command_line.own)
      if (own == flag) names += (names.empty() ? "" : " or ") + std::string(row.name);
  return names;
}

bool owns(const PatternRow& row, std::string_view flag) {
  for (const std::string_view own : row.command_line.own)
    if (own == flag) return true;
  return false;
}

// What the pattern's row says it takes: a common flag it refuses, or another pattern's own
// flag, is a usage error.
void check_pattern_flags(const Flags& flags, const PatternRow& row) {
  for (const std::string_view flag : row.command_line.refused)
    if (flags.count(flag) != 0)
      throw UsageError("flag " + std::string(flag) + " is not used with --pattern " +
                       std::string(row.name));
  for (const PatternRow& other : Patterns::rows)
    for (const std::string_view flag : other.command_line.own)
      if (flags.count(flag) != 0 && !owns(row, flag))
        throw UsageError("flag " + std::string(flag) + " needs --pattern " + owners(flag));
}

// Load over sysv-mq names both its queues, request queue first (11.5.5: a pattern whose clients
// share a request queue); every other use of a System V key takes one.
void check_key_count(const DriveOptions& o, const PatternRow& row) {
  const auto* key = std::get_if<KeyEndpoint>(&o.endpoint);
  if (key == nullptr) return;
  const bool two = row.command_line.shares_request_queue && o.mechanism_name == "sysv-mq";
  const std::string bad = "bad value for --endpoint: '" + o.endpoint_text + "' ";
  if (two && key->reply_key == 0)
    throw UsageError(bad + "(load over sysv-mq takes sysv:0x<request key>,0x<reply key>)");
  if (!two && key->reply_key != 0)
    throw UsageError(bad + "(two keys name load's queues over sysv-mq only)");
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
             "--source", "--value-range", "--records", "--mock", "--sample-write"});
  DriveOptions o;
  parse_common(flags, o);
  if (auto it = flags.find("--pattern"); it != flags.end()) o.pattern = it->second;
  const PatternRow* found = Patterns::find(o.pattern);
  const PatternRow& row = found != nullptr ? *found : kUnknownPattern;
  check_pattern_flags(flags, row);
  row.command_line.parse(flags, o);
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
    check_key_count(o, row);
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
