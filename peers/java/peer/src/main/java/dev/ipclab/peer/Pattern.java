package dev.ipclab.peer;

import java.io.IOException;
import java.util.Optional;

/**
 * The traffic patterns of PROTOCOL.md section 11, the second table beside {@link Mechanism}:
 * each pattern is one entry and one function that drives a {@link Session}. A later pattern
 * (stream, short, burst) adds an entry here and lists itself in the mechanisms that carry it.
 */
enum Pattern {
    /** Request-response: one sample is one round trip. */
    RR("rr", Pattern::requestResponse);

    /** How a pattern drives a connected client. */
    interface Driver {
        void drive(Session session, long warmup, long iterations, Samples warm, Samples measured)
                throws PeerException, IOException;
    }

    private final String label;
    private final Driver driver;

    Pattern(String label, Driver driver) {
        this.label = label;
        this.driver = driver;
    }

    static Optional<Pattern> byName(String name) {
        for (Pattern p : values()) {
            if (p.label.equals(name)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    String label() {
        return label;
    }

    void drive(Session session, long warmup, long iterations, Samples warm, Samples measured)
            throws PeerException, IOException {
        driver.drive(session, warmup, iterations, warm, measured);
    }

    /**
     * Warm-up round trips, measured ones, then the finish. A round trip's time is recorded only
     * after it returned, that is after its checks. Two loops over the same roundTrip, not one
     * loop with an "is this measured?" test: the JIT would compile that test during warm-up as
     * never true and deoptimise at the first measured sample.
     */
    private static void requestResponse(Session session, long warmup, long iterations, Samples warm,
            Samples measured) throws PeerException, IOException {
        long sequence = 0;
        for (; sequence < warmup; sequence++) {
            warm.add(session.roundTrip(sequence));
        }
        for (long end = warmup + iterations; sequence < end; sequence++) {
            measured.add(session.roundTrip(sequence));
        }
        session.finish(sequence);
    }
}
