// What the rr servers of server.cpp and channel_servers.cpp share (defined in server.cpp): the
// Responder's configuration from the serve options and the stderr line of a rejected frame.
#pragma once

#include "options.hpp"
#include "responder.hpp"

namespace ipclab {

ServerConfig config_of(const ServeOptions& o);

void report_rejected(const char* reason);

}  // namespace ipclab
