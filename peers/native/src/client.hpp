// The client side (`drive`): runs warm-up and measured REQUEST/RESPONSE round trips, END, and
// writes the samples and result files (PROTOCOL.md sections 2, 3, 7).
#pragma once

#include "cli.hpp"

namespace ipclab {

// Returns the exit code; always writes the result file (usage errors never get here).
int run_drive(const DriveOptions& options);

}  // namespace ipclab
