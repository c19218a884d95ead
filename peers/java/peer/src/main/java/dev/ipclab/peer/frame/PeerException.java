package dev.ipclab.peer.frame;

/** A failure that ends the run with one of the contract's error kinds (PROTOCOL.md section 8). */
public final class PeerException extends Exception {
    private static final long serialVersionUID = 1L;

    private final ErrorKind kind;

    public PeerException(ErrorKind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public PeerException(ErrorKind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public static PeerException io(String message, Throwable cause) {
        return new PeerException(ErrorKind.IO, message, cause);
    }

    public static PeerException timeout(String message, Throwable cause) {
        return new PeerException(ErrorKind.TIMEOUT, message, cause);
    }

    public static PeerException protocol(String message, Throwable cause) {
        return new PeerException(ErrorKind.PROTOCOL, message, cause);
    }

    public static PeerException mismatch(String message) {
        return new PeerException(ErrorKind.PAYLOAD_MISMATCH, message);
    }

    public static PeerException unsupported(String message) {
        return new PeerException(ErrorKind.UNSUPPORTED, message);
    }

    public ErrorKind kind() {
        return kind;
    }

    /** An exception as a reader needs it: its type says as much as its message (EOF, refused). */
    public static String describe(Throwable e) {
        String message = e.getMessage();
        String name = e.getClass().getSimpleName();
        return message == null ? name : name + ": " + message;
    }

    /** The one stderr line of PROTOCOL.md section 5: {@code ipclab-peer: <kind>: <message>}. */
    public String line() {
        return "ipclab-peer: " + kind.label() + ": " + getMessage();
    }
}
