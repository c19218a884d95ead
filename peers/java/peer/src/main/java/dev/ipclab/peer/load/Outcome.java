package dev.ipclab.peer.load;

import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.transport.ReceiveTimeoutException;
import java.io.EOFException;
import java.io.IOException;

/** A request's end in the records file (PROTOCOL.md 11.5.3 step 4): ok or an error kind. */
enum Outcome {
    OK(""),
    RESET("reset"),
    EOF("eof"),
    TIMEOUT("timeout"),
    IO("io"),
    NOT_SENT("not-sent"),
    PROTOCOL("protocol"),
    PAYLOAD_MISMATCH("payload-mismatch");

    private static final Outcome[] BY_CODE = values();

    private final String label;

    Outcome(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }

    /** Stored as a byte per request, in an array made before T0. */
    byte code() {
        return (byte) ordinal();
    }

    static Outcome of(byte code) {
        return BY_CODE[code];
    }

    /**
     * The kind of a failed exchange: the contract's kind, an io error told apart further by its
     * transport cause (reset, eof, a receive timeout) where there is one.
     */
    static Outcome of(PeerException e) {
        return switch (e.kind()) {
            case TIMEOUT -> TIMEOUT;
            case PROTOCOL -> PROTOCOL;
            case PAYLOAD_MISMATCH -> PAYLOAD_MISMATCH;
            default -> e.getCause() instanceof IOException cause ? of(cause) : IO;
        };
    }

    /** The kind of a transport failure: a timeout, the server's close, a reset, or anything else. */
    static Outcome of(IOException e) {
        if (e instanceof ReceiveTimeoutException) {
            return TIMEOUT;
        }
        if (e instanceof EOFException) {
            return EOF;
        }
        String message = String.valueOf(e.getMessage());
        return message.contains("reset") || message.contains("Broken pipe") ? RESET : IO;
    }
}
