package dev.ipclab.peer;

/**
 * {@code serve}: the mechanism stays a string, because an unknown one is an unsupported error
 * (exit 7), reported after parsing, not a usage error.
 */
record ServeOptions(String mechanism, String endpoint, long seed, boolean flipResponseByte,
        long pollIntervalNanos) implements Command {
    /** With the default --poll-interval-us. */
    ServeOptions(String mechanism, String endpoint, long seed, boolean flipResponseByte) {
        this(mechanism, endpoint, seed, flipResponseByte, Mechanism.DEFAULT_POLL_INTERVAL_NANOS);
    }
}
