package dev.ipclab.peer.transport;

import java.io.IOException;

/** A receive waited longer than --io-timeout (the contract's {@code timeout} kind). */
public final class ReceiveTimeoutException extends IOException {
    private static final long serialVersionUID = 1L;

    public ReceiveTimeoutException(String message) {
        super(message);
    }
}
