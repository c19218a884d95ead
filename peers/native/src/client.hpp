// The client side (`drive`): runs warm-up and measured round trips, END, and writes the samples
// and result files (PROTOCOL.md sections 2, 3, 7). run_drive looks the mechanism up in the
// table (mechanisms.hpp); the table's rows connect and hand the connection to one of the
// drivers below, which run the asked pattern (patterns.hpp) over the matching link (links.hpp).
// The checks of what the server answers are reply_checks.hpp's.
#pragma once

#include <memory>

#include "native/ipclab_native.h"
#include "options.hpp"
#include "result.hpp"
#include "transport/file.hpp"
#include "transport/message.hpp"
#include "transport/transport.hpp"

namespace ipclab {

// Returns the exit code; always writes the result file (usage errors never get here).
int run_drive(const DriveOptions& options);

// The drivers, one per family of transports. Each throws PeerError; the samples of round trips
// that passed validation stay recorded.
// reconnect: how to open connection i for pattern short (tcp, uds); empty: not possible.
void drive_stream(Stream stream, const DriveOptions& o, Recorder& recorder,
                  StreamConnector reconnect = {});
void drive_datagrams(DatagramSocket socket, const DriveOptions& o, Recorder& recorder);
// timer: the channel's receive has no timeout of its own (sysv-mq), so --io-timeout needs the
// ReceiveWatchdog.
void drive_messages(std::unique_ptr<MessageChannel> channel, bool timer, const DriveOptions& o,
                    Recorder& recorder);
void drive_files(const DirEndpoint& dir, bool poll, const DriveOptions& o, Recorder& recorder);
// none (call == nullptr) and direct (section 4.4), in inproc.cpp.
void drive_calls(ipclab_call_fn call, const DriveOptions& o, Recorder& recorder);
// direct: ipclab_call from --native-library (io error if it cannot be loaded).
ipclab_call_fn load_ipclab_call(const std::string& path);

}  // namespace ipclab
