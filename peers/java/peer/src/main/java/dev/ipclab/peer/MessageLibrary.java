package dev.ipclab.peer;

import dev.ipclab.peer.transport.NatsLink;
import dev.ipclab.peer.transport.Nng;
import dev.ipclab.peer.transport.RedisLink;
import dev.ipclab.peer.transport.Zmq;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The libraries some rows of {@link Mechanism} run on (PROTOCOL.md 4.8-4.11): whether this
 * machine has each (a C library of the system's, called through FFM, may be missing; then its
 * rows are left out of capabilities and answer unsupported) and which version runs, for
 * capabilities' {@code library}.
 */
enum MessageLibrary {
    /** The system's libzmq through FFM (4.8). */
    LIBZMQ(EnumSet.of(Mechanism.ZMQ_TCP, Mechanism.ZMQ_IPC), Zmq::problem, Zmq::version),
    /** The system's libnng through FFM (4.9). */
    LIBNNG(EnumSet.of(Mechanism.NNG_TCP, Mechanism.NNG_IPC), Nng::problem, Nng::version),
    /** Jedis, in the jar: always there (4.10). */
    JEDIS(EnumSet.of(Mechanism.REDIS_TCP, Mechanism.REDIS_UDS), () -> null, RedisLink::library),
    /** jnats, in the jar: always there (4.11). */
    JNATS(EnumSet.of(Mechanism.NATS), () -> null, NatsLink::library);

    private final Set<Mechanism> mechanisms;
    private final Supplier<String> problem;
    private final Supplier<String> version;

    MessageLibrary(Set<Mechanism> mechanisms, Supplier<String> problem, Supplier<String> version) {
        this.mechanisms = mechanisms;
        this.problem = problem;
        this.version = version;
    }

    /** The library mechanism runs on, if any. */
    static Optional<MessageLibrary> of(Mechanism mechanism) {
        return Arrays.stream(values()).filter(l -> l.mechanisms.contains(mechanism)).findFirst();
    }

    /** Why it cannot run in this process, or null. */
    String problem() {
        return problem.get();
    }

    /**
     * {@code "libzmq 4.3.4"}, {@code "nng 1.5.2"}, {@code "jedis 8.0.2"}, {@code "jnats 2.20.5"}.
     */
    String version() {
        return version.get();
    }
}
