package dev.ipclab.peer;

/** A failure that ends the run with one of the contract's error kinds. */
final class PeerException extends Exception {
    private static final long serialVersionUID = 1L;

    private final ErrorKind kind;

    PeerException(ErrorKind kind, String message) {
        super(message);
        this.kind = kind;
    }

    PeerException(ErrorKind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    ErrorKind kind() {
        return kind;
    }

    /** An exception as a reader needs it: its type says as much as its message (EOF, refused). */
    static String describe(Throwable e) {
        String message = e.getMessage();
        String name = e.getClass().getSimpleName();
        return message == null ? name : name + ": " + message;
    }

    /** The one stderr line of PROTOCOL.md section 5: {@code ipclab-peer: <kind>: <message>}. */
    String line() {
        return "ipclab-peer: " + kind.label() + ": " + getMessage();
    }
}
