// Each pattern's own flags (PROTOCOL.md section 1, 11.1, 11.4, 11.5.2): the readers the rows of
// patterns.hpp point to. cli.cpp has already refused the flags a pattern does not take.
#include "pattern_flags.hpp"

#include "error.hpp"
#include "frame.hpp"
#include "numbers.hpp"

namespace ipclab {

namespace {

void parse_sizes(const Flags& flags, DriveOptions& o) {
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
    // --void and --one-way have no response: --response-size absent is 0 (cli.cpp's studies).
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

void parse_counts(const Flags& flags, DriveOptions& o) {
  o.iterations = parse_unsigned("--iterations", required(flags, "--iterations"), UINT64_MAX);
  if (o.iterations == 0) throw UsageError("bad value for --iterations: must be at least 1");
  if (auto it = flags.find("--warmup"); it != flags.end())
    o.warmup = parse_unsigned("--warmup", it->second, UINT64_MAX);
  // Sequences run from 0 to warmup + iterations (the END frame): all must fit in a u64.
  if (o.warmup >= UINT64_MAX - o.iterations)
    throw UsageError("bad value for --warmup: warmup + iterations overflows the sequence");
}

// burst and load: --request-size and --response-size are optional (burst: 1000 and 8, the
// paper's request and acknowledgement; load: 16 and 16, PROTOCOL.md 11.5.3).
void parse_optional_sizes(const Flags& flags, DriveOptions& o, std::uint32_t request,
                          std::uint32_t response) {
  o.request_size = request;
  o.response_size = response;
  if (auto it = flags.find("--request-size"); it != flags.end())
    o.request_size = static_cast<std::uint32_t>(
        parse_unsigned("--request-size", it->second, kMaxPayload));
  if (auto it = flags.find("--response-size"); it != flags.end())
    o.response_size = static_cast<std::uint32_t>(
        parse_unsigned("--response-size", it->second, kMaxPayload));
}

// burst's release, load's T0 (11.4.4, 11.5.3): the wall clock's ns since the epoch; at most
// INT64_MAX (year 2262): a signed timespec.
void parse_release_at(const Flags& flags, DriveOptions& o) {
  const auto it = flags.find("--release-at");
  if (it == flags.end()) return;
  o.release_at_ns =
      static_cast<std::int64_t>(parse_unsigned("--release-at", it->second, INT64_MAX));
  if (o.release_at_ns == 0)
    throw UsageError("bad value for --release-at: '0' (CLOCK_REALTIME ns, at least 1)");
}

}  // namespace

void parse_round_trip_flags(const Flags& flags, DriveOptions& o) {
  parse_sizes(flags, o);
  parse_counts(flags, o);
}

void parse_stream_flags(const Flags& flags, DriveOptions& o) {
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

void parse_burst_flags(const Flags& flags, DriveOptions& o) {
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

void parse_load_flags(const Flags& flags, DriveOptions& o) {
  parse_optional_sizes(flags, o, 16, 16);
  o.clients = static_cast<std::uint32_t>(ranged(flags, "--clients", 1, 1024));
  o.rate = ranged(flags, "--rate", 1, 10'000'000);
  o.duration_ms = ranged(flags, "--duration-ms", 1, 3'600'000);
  if (flags.count("--warmup-ms") != 0) o.warmup_ms = ranged(flags, "--warmup-ms", 0, 3'600'000);
  o.poisson = !choice(flags, "--arrival", "fixed", "poisson");
  o.records_file = nonempty_path(flags, "--records-file");
  parse_release_at(flags, o);
}

}  // namespace ipclab
