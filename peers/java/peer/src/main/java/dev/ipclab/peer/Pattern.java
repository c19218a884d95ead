package dev.ipclab.peer;

import java.io.IOException;
import java.util.Optional;

/**
 * The traffic patterns of PROTOCOL.md section 11, the second table beside {@link Mechanism}:
 * each pattern is one entry and one function that drives what the mechanism opens for it. A
 * mechanism carries a pattern when its table entry says how to open it.
 */
enum Pattern {
    /** Request-response over one connection: one sample is one round trip. */
    RR("rr", (mechanism, options, warm, measured) ->
            roundTrips(mechanism.open(options), options, warm, measured)),
    /** A one-way stream (11.1): one sample is one window. */
    STREAM("stream", (mechanism, options, warm, measured) -> {
        try (OneWay stream = mechanism.openStream(options)) {
            return StreamDrive.drive(stream, options, measured);
        }
    }),
    /** A new connection per round trip (11.2): the same loop; the session dials each time. */
    SHORT("short", (mechanism, options, warm, measured) ->
            roundTrips(mechanism.openShort(options), options, warm, measured));

    /** How a pattern drives a client of a mechanism. */
    interface Driver {
        /** @return what a stream adds to the result, or null */
        StreamDrive.Report drive(Mechanism mechanism, DriveOptions options, Samples warm,
                Samples measured) throws PeerException, IOException;
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

    StreamDrive.Report drive(Mechanism mechanism, DriveOptions options, Samples warm,
            Samples measured) throws PeerException, IOException {
        return driver.drive(mechanism, options, warm, measured);
    }

    /**
     * Warm-up round trips, measured ones, then the finish. A round trip's time is recorded only
     * after it returned, that is after its checks. Two loops over the same roundTrip, not one
     * loop with an "is this measured?" test: the JIT would compile that test during warm-up as
     * never true and deoptimise at the first measured sample.
     */
    private static StreamDrive.Report roundTrips(Session session, DriveOptions options,
            Samples warm, Samples measured) throws PeerException, IOException {
        try (session) {
            long sequence = 0;
            for (long warmup = options.warmup(); sequence < warmup; sequence++) {
                warm.add(session.roundTrip(sequence));
            }
            for (long end = options.warmup() + options.iterations(); sequence < end; sequence++) {
                measured.add(session.roundTrip(sequence));
            }
            session.finish(sequence);
        }
        return null;
    }
}
