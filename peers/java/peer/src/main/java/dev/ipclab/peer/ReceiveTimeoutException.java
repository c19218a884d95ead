package dev.ipclab.peer;

import java.io.IOException;

/** A receive waited longer than --io-timeout (the contract's {@code timeout} kind). */
final class ReceiveTimeoutException extends IOException {
    private static final long serialVersionUID = 1L;

    ReceiveTimeoutException(String message) {
        super(message);
    }
}
