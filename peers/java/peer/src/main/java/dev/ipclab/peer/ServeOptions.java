package dev.ipclab.peer;

/**
 * {@code serve}: the mechanism stays a string, because an unknown one is an unsupported error
 * (exit 7), reported after parsing, not a usage error.
 */
record ServeOptions(String mechanism, String endpoint, long seed, boolean flipResponseByte,
        long pollIntervalNanos, long spinNanos) implements Command {
    /** What a listener may read; a server's waits have no timeout. */
    Mechanism.Settings settings() {
        return new Mechanism.Settings(0, pollIntervalNanos, spinNanos);
    }

    /** With the default --spin-us. */
    ServeOptions(String mechanism, String endpoint, long seed, boolean flipResponseByte,
            long pollIntervalNanos) {
        this(mechanism, endpoint, seed, flipResponseByte, pollIntervalNanos,
                Mechanism.DEFAULT_SPIN_NANOS);
    }

    /** With the default --poll-interval-us. */
    ServeOptions(String mechanism, String endpoint, long seed, boolean flipResponseByte) {
        this(mechanism, endpoint, seed, flipResponseByte, Mechanism.DEFAULT_POLL_INTERVAL_NANOS);
    }
}
