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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The traffic patterns of PROTOCOL.md section 11, the second table beside {@link Mechanism}:
 * each pattern is one entry, what the command line asks of it ({@link Flags}) and one function
 * that drives what the mechanism opens for it. A mechanism carries a pattern when its table
 * entry says how to open it. {@link Cli} names no pattern: it checks and reads a drive's flags
 * by the entry.
 */
enum Pattern {
    /** Request-response over one connection: one sample is one round trip. --void is its own. */
    RR("rr", new Flags(List.of("void"), List.of(), Cli::driveRoundTrips, false),
            (mechanism, options, warm, measured) ->
            roundTrips(mechanism.open(options), options, warm, measured)),
    /**
     * A one-way stream (11.1): one sample is one window. Its sizes and counts are its own; the
     * round trips' flags are not a stream's.
     */
    STREAM("stream", new Flags(List.of("message-size", "messages", "windows"),
            List.of("request-size", "response-size", "iterations", "payload", "sequence-length",
                    "http-client", "native-library", "warmup-samples-file", "void", "one-way",
                    "rest-body", "corba-payload"),
            (flags, name) -> StreamCli.drive(flags), false),
            (mechanism, options, warm, measured) -> {
        try (OneWay stream = mechanism.openStream(options)) {
            return StreamDrive.drive(stream, options.stream(), options.warmup(), options.seed(),
                    measured);
        }
    }),
    /**
     * A new connection per round trip (11.2): the same loop; the session dials each time.
     * --one-way and --source are its own.
     */
    SHORT("short", new Flags(List.of("one-way", "source"), List.of(), Cli::driveRoundTrips,
            false), (mechanism, options, warm, measured) ->
            roundTrips(mechanism.openShort(options), options, warm, measured)),
    /**
     * Open-loop load over persistent connections (11.5): one sample is one response time. Its
     * schedule is its own; the other patterns' counts are not load's (11.5.3), and
     * {@code serve --pattern load} makes a server model's load server (11.5.1).
     */
    LOAD("load", new Flags(List.of("clients", "rate", "arrival", "duration-ms", "warmup-ms",
                    "records-file"),
            List.of("iterations", "warmup", "warmup-samples-file", "payload", "sequence-length",
                    "message-size", "messages", "windows", "void", "one-way"),
            (flags, name) -> LoadCli.drive(flags), true),
            (mechanism, options, warm, measured) -> LoadDrive.drive(
            c -> mechanism.connectLoad(options, c), options.load(), options.seed(), measured));

    /**
     * What the command line asks of a pattern: the drive flags only it takes ({@code own}; given
     * with another pattern, a usage error), the common ones it does not take ({@code refused}),
     * how its options are read once those are checked, and whether {@code serve --pattern}
     * takes its name.
     */
    record Flags(List<String> own, List<String> refused, Reader reader, boolean servedByModel) {}

    /** Reads the options of {@code drive --pattern name}. */
    interface Reader {
        DriveOptions read(Map<String, String> flags, String name);
    }

    /** How a pattern drives a client of a mechanism. */
    interface Driver {
        /** @return what the pattern adds to the result (a stream, a load), or null */
        Report drive(Mechanism mechanism, DriveOptions options, Samples warm,
                Samples measured) throws PeerException, IOException;
    }

    private final String label;
    private final Flags flags;
    private final Driver driver;

    Pattern(String label, Flags flags, Driver driver) {
        this.label = label;
        // a row without its flags or its driver would fail only when a command line names it
        this.flags = Objects.requireNonNull(flags, label);
        this.driver = Objects.requireNonNull(driver, label);
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

    Flags flags() {
        return flags;
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
