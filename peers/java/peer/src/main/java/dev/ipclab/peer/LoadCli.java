package dev.ipclab.peer;

import dev.ipclab.peer.burst.BurstOptions;
import dev.ipclab.peer.load.LoadShape;
import dev.ipclab.peer.transport.Numbers;
import dev.ipclab.peer.transport.SysVKeys;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The command line of pattern load (PROTOCOL.md 1 and 11.5), beside {@link Cli}: the flags only
 * load takes and the ones it refuses are its {@link Pattern} entry's, checked before
 * {@link #drive}.
 */
final class LoadCli {
    /** A burst server's flags, which a load server refuses (11.5.1). */
    private static final List<String> BURST_SERVE_ONLY = List.of("connections", "phases-file",
            "backlog");
    /**
     * What a load server of an RPC mechanism or a message queue, which is no burst server,
     * refuses as usage: the burst server's own.
     */
    private static final List<String> OWN_SERVE_REFUSED = List.of("connections", "phases-file");
    /** The tuning flags a load server may refuse as unsupported (11.5.4, 11.5.5). */
    private static final List<String> TUNING = List.of(BurstOptions.WORKERS,
            BurstOptions.BACKLOG, BurstOptions.NODELAY);
    /** Sizes when not given: the orchestrator's default for load (16 B each way). */
    private static final String DEFAULT_SIZE = "16";

    private LoadCli() {}

    static DriveOptions drive(Map<String, String> flags) {
        for (String name : List.of("clients", "rate", "duration-ms", "records-file")) {
            if (!flags.containsKey(name)) {
                throw new IllegalArgumentException("missing required flag --" + name
                        + " (--pattern load)");
            }
        }
        String arrival = flags.getOrDefault("arrival", "fixed");
        if (!arrival.equals("fixed") && !arrival.equals("poisson")) {
            throw new IllegalArgumentException("--arrival must be fixed or poisson, got '"
                    + arrival + "'");
        }
        LoadShape shape = new LoadShape(
                (int) Numbers.inRange(flags.get("clients"), "--clients", 1, LoadShape.MAX_CLIENTS),
                Numbers.inRange(flags.get("rate"), "--rate", 1, LoadShape.MAX_RATE),
                arrival.equals("poisson"),
                Numbers.inRange(flags.get("duration-ms"), "--duration-ms", 1, LoadShape.MAX_MS),
                Numbers.inRange(flags.getOrDefault("warmup-ms", "0"), "--warmup-ms", 0,
                        LoadShape.MAX_MS),
                Cli.path(flags, "records-file"));
        String mechanism = flags.get("mechanism");
        return new DriveOptions(mechanism, endpoint(mechanism, flags.get("endpoint")),
                Pattern.LOAD.label(), size(flags, "request-size"), size(flags, "response-size"),
                0, 0,
                Cli.path(flags, "samples-file"), Cli.path(flags, "result-file"), Cli.seed(flags),
                Numbers.positiveSecondsAsNanos(flags.getOrDefault("io-timeout", "30"),
                        "--io-timeout"),
                Cli.pollInterval(flags), Cli.spin(flags), null, DriveOptions.BYTES,
                DriveOptions.DEFAULT_SEQUENCE_LENGTH, Cli.httpClient(flags), null, null,
                Study.of(flags, false), shape);
    }

    /**
     * {@code serve --pattern load}: only a pattern a server model serves by name (its
     * {@link Pattern} entry says so: load), and only with --server-model; a burst server's own
     * flags are refused.
     */
    static BurstOptions serve(Map<String, String> flags) {
        String pattern = flags.get("pattern");
        if (Pattern.byName(pattern).filter(p -> p.flags().servedByModel()).isEmpty()) {
            throw new IllegalArgumentException("serve --pattern takes only " + servedByModel()
                    + ", got '" + pattern + "'");
        }
        if (!flags.containsKey("server-model")) {
            throw new IllegalArgumentException("missing required flag --server-model "
                    + "(serve --pattern load)");
        }
        // Over RPC and the queues, --backlog is unsupported (11.5.4, 11.5.5), not a usage error.
        boolean own = Mechanism.byName(flags.get("mechanism"))
                .map(m -> m.carriesRecords() || m.queueLoad() != null).orElse(false);
        refuse(flags, own ? OWN_SERVE_REFUSED : BURST_SERVE_ONLY,
                "is a burst server's flag, not of --pattern load");
        String model = flags.get("server-model");
        if (model.isEmpty()) {
            throw new IllegalArgumentException("--server-model must not be empty");
        }
        if (flags.containsKey("backlog")) {
            Numbers.inRange(flags.get("backlog"), "--backlog", 1, 65535);
        }
        return BurstOptions.load(model, (int) Numbers.inRange(flags.getOrDefault("workers",
                Integer.toString(BurstOptions.DEFAULT_WORKERS)), "--workers", 1, 1024),
                Cli.nodelay(flags), TUNING.stream().filter(flags::containsKey)
                        .collect(Collectors.toSet()));
    }

    /** The patterns {@code serve --pattern} takes. */
    private static String servedByModel() {
        return Arrays.stream(Pattern.values()).filter(p -> p.flags().servedByModel())
                .map(Pattern::label).collect(Collectors.joining(", "));
    }

    /** sysv-mq's load endpoint names two queues (11.5.5); every other is the mechanism's own. */
    private static String endpoint(String mechanism, String endpoint) {
        if (mechanism.equals(Mechanism.SYSV_MQ.label())) {
            SysVKeys.parsePair(endpoint);
            return endpoint;
        }
        return Cli.endpoint(mechanism, endpoint, true);
    }

    private static int size(Map<String, String> flags, String name) {
        return Cli.size(Map.of(name, flags.getOrDefault(name, DEFAULT_SIZE)), name);
    }

    private static void refuse(Map<String, String> flags, List<String> names, String why) {
        for (String name : names) {
            if (flags.containsKey(name)) {
                throw new IllegalArgumentException("--" + name + " " + why);
            }
        }
    }
}
