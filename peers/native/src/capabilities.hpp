// The `capabilities` answer (PROTOCOL.md section 1): what this build carries, from the table of
// mechanisms (mechanisms.hpp) and the table of burst server models (burst/server_models.hpp).
#pragma once

#include <string>

namespace ipclab {

// One JSON line: contract, language, runtime, and per mechanism its roles, patterns, largest
// payload and (burst) server models.
std::string capabilities_json();

}  // namespace ipclab
