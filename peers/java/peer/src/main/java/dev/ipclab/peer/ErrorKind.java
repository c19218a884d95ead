package dev.ipclab.peer;

/** The error kinds of PROTOCOL.md section 8, each with its exit code and its name on the wire. */
enum ErrorKind {
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

    int exitCode() {
        return exitCode;
    }

    /** The kind of a label; an unknown one is a bug, reported as internal. */
    static ErrorKind byLabel(String label) {
        for (ErrorKind kind : values()) {
            if (kind.label.equals(label)) {
                return kind;
            }
        }
        return INTERNAL;
    }

    /** The name used in stderr lines and in the result file's {@code error_kind}. */
    String label() {
        return label;
    }
}
