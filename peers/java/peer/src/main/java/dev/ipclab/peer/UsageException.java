package dev.ipclab.peer;

/** A bad command line: one line on stderr, exit 2, nothing else done. */
final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }

    String line() {
        return "ipclab-peer: usage: " + getMessage();
    }
}
