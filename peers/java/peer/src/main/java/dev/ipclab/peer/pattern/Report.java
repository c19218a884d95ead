package dev.ipclab.peer.pattern;

import dev.ipclab.peer.frame.PeerException;

/**
 * What a pattern adds to the result file (a stream's figures, a load's counts), and a failure
 * found after the run that the report must still carry (a load whose responses failed
 * validation: the files are written, then the client exits with that kind, 11.5.3).
 */
public interface Report {
    /** @return null, or the failure to report once every file is written */
    default PeerException failure() {
        return null;
    }
}
