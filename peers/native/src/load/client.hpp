// load (PROTOCOL.md 11.5.2-11.5.3): the open-loop client. C persistent connections driven by
// one thread's epoll loop: request k goes on connection k mod C at T0 + o_k, or as soon as
// that connection's previous answer has come if that is later; every request's intended, sent
// and received instants are kept in memory made before T0 and written out afterwards.
#pragma once

#include "burst/sockets.hpp"
#include "options.hpp"
#include "result.hpp"

namespace ipclab::load {

// Runs the schedule; writes the records file, adds the samples, reports the figures. A request
// that fails (reset, eof, timeout, io) is a record, not an error; a connect that fails throws
// io; an answer that fails validation throws (protocol or payload-mismatch) once all is written.
void run_load_client(const DriveOptions& o, const burst::Sockets& sockets, Recorder& recorder);

}  // namespace ipclab::load
