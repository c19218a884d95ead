package dev.ipclab.peer;

import dev.ipclab.linuxipc.LinuxIpc;
import dev.ipclab.peer.burst.BurstOptions;
import dev.ipclab.peer.server.Fault;

/**
 * {@code serve}: the mechanism stays a string, because an unknown one is an unsupported error
 * (exit 7), reported after parsing, not a usage error.
 *
 * @param burst with --server-model, a burst server's options (section 11.4); else null
 * @param nodelay --nodelay on (true, the default) or off (section 1)
 * @param javaBinding --java-binding (4.6); ffm by default
 * @param delivery --delivery (activemq, 4.7); null when absent
 * @param backlog --backlog of the rr server's listening socket (tcp, uds); 0 when not given
 *     (the listener's 512), since given to a server without one it is unsupported whatever its
 *     value (section 1); a burst server has its own in {@code burst}
 * @param readSize --read-size: the most a stream server's receive of stream messages asks for
 *     over a byte stream (11.1); 0, the default, reads greedily
 */
record ServeOptions(String mechanism, String endpoint, long seed, Fault fault,
        long pollIntervalNanos, long spinNanos, BurstOptions burst, boolean nodelay,
        LinuxIpc.Binding javaBinding, Delivery delivery, int backlog, int readSize)
        implements Command {
    /** What a listener may read; a server's waits have no timeout. */
    Mechanism.Settings settings() {
        return new Mechanism.Settings(0, pollIntervalNanos, spinNanos, nodelay,
                Delivery.persistent(delivery), listenBacklog(), false, 0, 0);
    }

    /** The rr server's listen() backlog: --backlog, or 512. */
    int listenBacklog() {
        return backlog == 0 ? BurstOptions.DEFAULT_BACKLOG : backlog;
    }

    /** Without --delivery, --backlog, --read-size. */
    ServeOptions(String mechanism, String endpoint, long seed, Fault fault, long pollIntervalNanos,
            long spinNanos, BurstOptions burst, boolean nodelay, LinuxIpc.Binding javaBinding) {
        this(mechanism, endpoint, seed, fault, pollIntervalNanos, spinNanos, burst, nodelay,
                javaBinding, null, 0, 0);
    }

    boolean flipResponseByte() {
        return fault == Fault.FLIP_RESPONSE_BYTE;
    }

    /** With --java-binding ffm. */
    ServeOptions(String mechanism, String endpoint, long seed, Fault fault, long pollIntervalNanos,
            long spinNanos, BurstOptions burst, boolean nodelay) {
        this(mechanism, endpoint, seed, fault, pollIntervalNanos, spinNanos, burst, nodelay,
                LinuxIpc.Binding.FFM);
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
