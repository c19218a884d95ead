// burst (PROTOCOL.md 11.4): the burst generator. P processes × T connector threads, released
// together by one barrier in shared memory (with --release-at, once all have arrived and the
// wall clock reads the agreed instant, so clients on several hosts release together), each
// making its share of the N connections one after another and recording each; the first
// process writes the records file and the samples.
#pragma once

#include "burst/sockets.hpp"
#include "options.hpp"
#include "result.hpp"

namespace ipclab::burst {

// Runs the burst; reports its figures to the recorder, writes the records file, adds the
// samples. A refused, reset or timed-out connection is a record, not an error; a RESPONSE that
// fails validation throws (protocol or payload-mismatch) once everything is written.
void run_burst_client(const DriveOptions& o, const Sockets& sockets, Recorder& recorder);

}  // namespace ipclab::burst
