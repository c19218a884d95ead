package dev.ipclab.peer.frame;

/** The error kinds of PROTOCOL.md section 8, each with its exit code and its name on the wire. */
public enum ErrorKind {
    INTERNAL(1, "internal"),
    USAGE(2, "usage"),
    PAYLOAD_MISMATCH(3, "payload-mismatch"),
    PROTOCOL(4, "protocol"),
    IO(5, "io"),
    TIMEOUT(6, "timeout"),
    UNSUPPORTED(7, "unsupported");

    private final int exitCode;
    private final String label;

    ErrorKind(int exitCode, String label) {
        this.exitCode = exitCode;
        this.label = label;
    }

    public int exitCode() {
        return exitCode;
    }

    /** The name used in stderr lines and in the result file's {@code error_kind}. */
    public String label() {
        return label;
    }
}
