package dev.ipclab.peer;

import dev.ipclab.peer.burst.BurstOptions;
import dev.ipclab.peer.server.Fault;

/**
 * {@code serve}: the mechanism stays a string, because an unknown one is an unsupported error
 * (exit 7), reported after parsing, not a usage error.
 *
 * @param burst with --server-model, a burst server's options (section 11.4); else null
 * @param nodelay --nodelay on (true, the default) or off (section 1)
 * @param jniBinding --java-binding jni (4.6); false for ffm, the default
 * @param delivery --delivery (activemq, 4.7); null when absent
 */
record ServeOptions(String mechanism, String endpoint, long seed, Fault fault,
        long pollIntervalNanos, long spinNanos, BurstOptions burst, boolean nodelay,
        boolean jniBinding, Delivery delivery) implements Command {
    /** What a listener may read; a server's waits have no timeout. */
    Mechanism.Settings settings() {
        return new Mechanism.Settings(0, pollIntervalNanos, spinNanos, nodelay,
                Delivery.persistent(delivery));
    }

    /** Without --delivery. */
    ServeOptions(String mechanism, String endpoint, long seed, Fault fault, long pollIntervalNanos,
            long spinNanos, BurstOptions burst, boolean nodelay, boolean jniBinding) {
        this(mechanism, endpoint, seed, fault, pollIntervalNanos, spinNanos, burst, nodelay,
                jniBinding, null);
    }

    boolean flipResponseByte() {
        return fault == Fault.FLIP_RESPONSE_BYTE;
    }

    /** With --java-binding ffm. */
    ServeOptions(String mechanism, String endpoint, long seed, Fault fault, long pollIntervalNanos,
            long spinNanos, BurstOptions burst, boolean nodelay) {
        this(mechanism, endpoint, seed, fault, pollIntervalNanos, spinNanos, burst, nodelay, false);
    }

    /** Not a burst server. */
    ServeOptions(String mechanism, String endpoint, long seed, Fault fault, long pollIntervalNanos,
            long spinNanos) {
        this(mechanism, endpoint, seed, fault, pollIntervalNanos, spinNanos, null, true);
    }

    /** With the default --spin-us. */
    ServeOptions(String mechanism, String endpoint, long seed, Fault fault, long pollIntervalNanos) {
        this(mechanism, endpoint, seed, fault, pollIntervalNanos, Mechanism.DEFAULT_SPIN_NANOS);
    }

    /** With the default --poll-interval-us. */
    ServeOptions(String mechanism, String endpoint, long seed, Fault fault) {
        this(mechanism, endpoint, seed, fault, Mechanism.DEFAULT_POLL_INTERVAL_NANOS);
    }

    /** With --fault none or flip-response-byte. */
    ServeOptions(String mechanism, String endpoint, long seed, boolean flipResponseByte) {
        this(mechanism, endpoint, seed, flipResponseByte ? Fault.FLIP_RESPONSE_BYTE : Fault.NONE);
    }
}
