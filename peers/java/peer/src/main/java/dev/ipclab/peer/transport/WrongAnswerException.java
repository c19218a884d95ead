package dev.ipclab.peer.transport;

import java.io.IOException;

/**
 * An answer that is not the one asked for, seen by the link before the frame checks can see it
 * (a broker's message: its correlation-id, or a body that is not bytes, PROTOCOL.md 4.7): the
 * contract's {@code protocol} kind.
 */
public final class WrongAnswerException extends IOException {
    private static final long serialVersionUID = 1L;

    WrongAnswerException(String message) {
        super(message);
    }
}
