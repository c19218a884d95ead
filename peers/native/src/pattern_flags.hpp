// What the command line (cli.cpp) asks of a pattern's row (patterns.hpp): which flags are its
// own, which common flags it refuses, and how its own values are read (pattern_flags.cpp). The
// command line names no pattern: it checks and dispatches by these traits only.
#pragma once

#include <span>
#include <string_view>

#include "cli_flags.hpp"
#include "options.hpp"

namespace ipclab {

// Reads a pattern's sizes and counts into o (the flags are already checked against its row).
using ParseFlags = void (*)(const Flags& flags, DriveOptions& o);

struct PatternFlags {
  // Flags that only this pattern takes (a flag may be two patterns' own: --records-file, burst's
  // and load's). Given with another pattern: "flag F needs --pattern <the patterns owning it>".
  std::span<const std::string_view> own;
  // Common flags it does not take: "flag F is not used with --pattern <its name>".
  std::span<const std::string_view> refused;
  ParseFlags parse;
  // `serve --pattern <its name>` makes a server model serve it (load, 11.5.1).
  bool served_by_model = false;
  // Its clients share one request queue (load, 11.5.5): over sysv-mq `drive --endpoint` names
  // both queues' keys, request queue first, and only its endpoint does.
  bool shares_request_queue = false;
};

// rr and short (sections 1, 7): --request-size and --response-size (bytes payloads),
// --iterations, --warmup.
void parse_round_trip_flags(const Flags& flags, DriveOptions& o);
// stream (11.1): --message-size, --messages, --windows, --warmup.
void parse_stream_flags(const Flags& flags, DriveOptions& o);
// burst (11.4): --connections, --connectors, --processes, optional sizes, --records-file,
// --release-at.
void parse_burst_flags(const Flags& flags, DriveOptions& o);
// load (11.5.2): the schedule (--clients, --rate, --arrival, --duration-ms, --warmup-ms),
// optional sizes, --records-file, --release-at.
void parse_load_flags(const Flags& flags, DriveOptions& o);

}  // namespace ipclab
