package dev.ipclab.peer.transport;

import java.io.IOException;

/**
 * A transport that sees frame boundaries (file: one file per frame) found a malformed frame
 * before the frame reader could: the reason is one of PROTOCOL.md section 2.
 */
public final class FrameRejectedException extends IOException {
    private static final long serialVersionUID = 1L;

    FrameRejectedException(String reason) {
        super(reason);
    }

    public String reason() {
        return getMessage();
    }
}
