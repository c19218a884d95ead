package dev.ipclab.peer.transport;

import java.io.IOException;

/**
 * An answer of a queue's load server that could not be delivered (PROTOCOL.md 11.5.5: a full or
 * missing reply queue): dropped with one stderr line, the server goes on.
 */
public final class ReplyDroppedException extends IOException {
    private static final long serialVersionUID = 1L;

    public ReplyDroppedException(String message, Throwable cause) {
        super(message, cause);
    }
}
