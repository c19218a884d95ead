package dev.ipclab.peer;

import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.load.LoadDrive;
import dev.ipclab.peer.pattern.OneWay;
import dev.ipclab.peer.pattern.Report;
import dev.ipclab.peer.pattern.RoundTrips;
import dev.ipclab.peer.pattern.Samples;
import dev.ipclab.peer.pattern.Session;
import dev.ipclab.peer.pattern.StreamDrive;
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
            return StreamDrive.drive(stream, options.stream(), options.warmup(), options.seed(),
                    measured);
        }
    }),
    /** A new connection per round trip (11.2): the same loop; the session dials each time. */
    SHORT("short", (mechanism, options, warm, measured) ->
            roundTrips(mechanism.openShort(options), options, warm, measured)),
    /** Open-loop load over persistent connections (11.5): one sample is one response time. */
    LOAD("load", (mechanism, options, warm, measured) -> LoadDrive.drive(
            c -> mechanism.connectLoad(options, c), options.load(), options.seed(), measured));

    /** How a pattern drives a client of a mechanism. */
    interface Driver {
        /** @return what the pattern adds to the result (a stream, a load), or null */
        Report drive(Mechanism mechanism, DriveOptions options, Samples warm,
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

    Report drive(Mechanism mechanism, DriveOptions options, Samples warm,
            Samples measured) throws PeerException, IOException {
        return driver.drive(mechanism, options, warm, measured);
    }

    /** rr and short: the round-trip loop; they add nothing to the result file. */
    private static Report roundTrips(Session session, DriveOptions options,
            Samples warm, Samples measured) throws PeerException, IOException {
        RoundTrips.run(session, options.warmup(), options.iterations(), warm, measured);
        return null;
    }
}
