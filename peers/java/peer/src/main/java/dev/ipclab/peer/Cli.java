package dev.ipclab.peer;

import dev.ipclab.linuxipc.LinuxIpc;
import dev.ipclab.peer.burst.BurstOptions;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.objects.ObjectWire;
import dev.ipclab.peer.rpc.Structs;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.transport.Numbers;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Strict parsing of PROTOCOL.md section 1: subcommand first, then {@code --name value} pairs,
 * each flag at most once; anything else is a usage error.
 */
final class Cli {
    static final String SERVE = "serve";
    static final String DRIVE = "drive";
    static final String CAPABILITIES = "capabilities";

    private static final Set<String> SERVE_FLAGS = Set.of("mechanism", "endpoint", "seed", "fault",
            "poll-interval-us", "spin-us", "server-model", "connections", "phases-file", "backlog",
            "workers", "nodelay", "java-binding", "pattern", "delivery", "read-size");
    /**
     * serve flags of pattern burst (section 11.4): each needs --server-model (--backlog, since
     * version 6 also the rr server's, does not).
     */
    private static final List<String> BURST_SERVE_ONLY = List.of("connections", "phases-file",
            "workers");
    private static final List<String> SERVE_REQUIRED = List.of("mechanism", "endpoint");
    private static final Set<String> DRIVE_FLAGS = Set.of("mechanism", "endpoint", "request-size",
            "response-size", "iterations", "samples-file", "result-file", "pattern", "warmup", "seed",
            "io-timeout", "poll-interval-us", "spin-us", "native-library", "payload",
            "sequence-length", "http-client", "warmup-samples-file", "message-size", "messages",
            "windows", "void", "nodelay", "rest-body", "corba-payload", "one-way", "java-binding",
            "records-file", "clients", "rate", "arrival", "duration-ms", "warmup-ms",
            "delivery", "source", "value-range", "records", "mock", "jni-arrays");
    /** Flags without a value (section 1's usage lines: {@code [--void]}, {@code [--one-way]}). */
    private static final Set<String> SWITCHES = Set.of("void", "one-way");
    /**
     * --iterations for rr and short, --message-size and --messages for stream; --request-size
     * and --response-size for bytes payloads only (section 1).
     */
    private static final List<String> DRIVE_REQUIRED = List.of("mechanism", "endpoint",
            "samples-file", "result-file");
    private static final Set<String> PAYLOADS = Set.of(DriveOptions.BYTES, "small", "medium",
            "large", DriveOptions.OBJECT, DriveOptions.LONG);
    /** Java only: rest's client library (okhttp as in the thesis, or java.net.http). */
    private static final Set<String> HTTP_CLIENTS = Set.of(DriveOptions.OKHTTP, "jdk");

    /** Keeps warmup + iterations + 1 sequence numbers well inside a signed long. */
    static final long MAX_COUNT = 1L << 62;
    /** --read-size: 0 (greedy reads, the default) or 1 … MAX_PAYLOAD (134217728). */
    private static final int MAX_READ_SIZE = Frame.MAX_PAYLOAD;

    private Cli() {}

    static Command parse(String[] args) throws UsageException {
        if (args.length == 0) {
            throw new UsageException("missing subcommand: serve, drive or capabilities");
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        try {
            return switch (args[0]) {
                case SERVE -> serve(flags(rest, SERVE_FLAGS, SERVE_REQUIRED));
                case DRIVE -> drive(flags(rest, DRIVE_FLAGS, DRIVE_REQUIRED));
                case CAPABILITIES -> capabilities(rest);
                default -> throw new UsageException("unknown subcommand '" + args[0]
                        + "' (expected serve, drive or capabilities)");
            };
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** {@code capabilities} takes no flags. */
    private static Capabilities capabilities(String[] rest) throws UsageException {
        if (rest.length > 0) {
            throw new UsageException("capabilities takes no arguments, got '" + rest[0] + "'");
        }
        return new Capabilities();
    }

    private static ServeOptions serve(Map<String, String> flags) {
        String mechanism = flags.get("mechanism");
        String endpoint = endpoint(mechanism, flags.get("endpoint"), false);
        String name = flags.getOrDefault("fault", Fault.NONE.label());
        Fault fault = Fault.byName(name).orElseThrow(() -> new IllegalArgumentException(
                "--fault must be none, flip-response-byte, drop-stream-message, flip-stream-byte, "
                + "stall or capacity:N (N >= 1), got '" + name + "'"));
        return new ServeOptions(mechanism, endpoint, seed(flags), fault, pollInterval(flags),
                spin(flags), burst(flags), nodelay(flags), javaBinding(flags),
                Delivery.parse(flags), flags.containsKey("backlog") ? backlog(flags) : 0,
                (int) Numbers.inRange(
                        flags.getOrDefault("read-size", "0"), "--read-size", 0, MAX_READ_SIZE));
    }

    /**
     * --backlog: the listen() backlog of a burst server (11.4) and, since version 6, of the rr
     * server over tcp and uds; 1 … 65535, default 512.
     */
    static int backlog(Map<String, String> flags) {
        return (int) Numbers.inRange(flags.getOrDefault("backlog",
                Integer.toString(BurstOptions.DEFAULT_BACKLOG)), "--backlog", 1, 65535);
    }

    /** A burst or load server's flags (sections 11.4, 11.5), or null without --server-model. */
    private static BurstOptions burst(Map<String, String> flags) {
        if (flags.containsKey("pattern")) {
            return LoadCli.serve(flags);
        }
        if (!flags.containsKey("server-model")) {
            for (String name : BURST_SERVE_ONLY) {
                if (flags.containsKey(name)) {
                    throw new IllegalArgumentException("--" + name + " is used only with --server-model");
                }
            }
            return null;
        }
        for (String name : List.of("connections", "phases-file")) {
            if (!flags.containsKey(name)) {
                throw new IllegalArgumentException("missing required flag --" + name
                        + " (with --server-model)");
            }
        }
        String model = flags.get("server-model");
        if (model.isEmpty()) {
            throw new IllegalArgumentException("--server-model must not be empty");
        }
        return new BurstOptions(model,
                Numbers.inRange(flags.get("connections"), "--connections", 1, MAX_COUNT),
                path(flags, "phases-file"),
                backlog(flags),
                (int) Numbers.inRange(flags.getOrDefault("workers",
                        Integer.toString(BurstOptions.DEFAULT_WORKERS)), "--workers", 1, 1024));
    }

    /**
     * {@code drive}: the pattern's entry in {@link Pattern} says which flags it takes and reads
     * them. An unknown pattern (unsupported later, exit 7) takes the round trips' flags and none
     * of a pattern's own.
     */
    private static DriveOptions drive(Map<String, String> flags) {
        String name = flags.getOrDefault("pattern", Pattern.RR.label());
        Optional<Pattern> pattern = Pattern.byName(name);
        refuseOtherFlags(flags, pattern, name);
        return pattern.map(p -> p.flags().reader()).orElse(Cli::driveRoundTrips)
                .read(flags, name);
    }

    /** A flag the pattern refuses, or another pattern's own, is a usage error. */
    private static void refuseOtherFlags(Map<String, String> flags, Optional<Pattern> pattern,
            String name) {
        for (String flag : pattern.map(p -> p.flags().refused()).orElse(List.of())) {
            if (flags.containsKey(flag)) {
                throw new IllegalArgumentException("--" + flag + " is not a flag of --pattern "
                        + name);
            }
        }
        for (Pattern other : Pattern.values()) {
            for (String flag : other.flags().own()) {
                if (flags.containsKey(flag) && pattern.filter(other::equals).isEmpty()) {
                    throw new IllegalArgumentException("--" + flag + " is a flag of --pattern "
                            + other.label() + " only, not of --pattern " + name);
                }
            }
        }
    }

    /** rr, short and an unknown pattern: round trips of sizes S and R, or a structured record. */
    static DriveOptions driveRoundTrips(Map<String, String> flags, String pattern) {
        if (!flags.containsKey("iterations")) {
            throw new IllegalArgumentException("missing required flag --iterations");
        }
        String mechanism = flags.get("mechanism");
        String nativeLibrary = NativeCall.libraryFlag(flags, mechanism);
        String payload = flags.getOrDefault("payload", DriveOptions.BYTES);
        if (!PAYLOADS.contains(payload)) {
            throw new IllegalArgumentException("--payload must be bytes, small, medium, large, "
                    + "object or long, got '" + payload + "'");
        }
        boolean structured = Structs.Kind.byLabel(payload) != null;
        Study study = Study.of(flags, structured);
        String httpClient = httpClient(flags);
        return checkObjectSizes(new DriveOptions(
                mechanism,
                endpoint(mechanism, flags.get("endpoint"), true),
                pattern, size(flags, "request-size", structured),
                responseSize(flags, structured, study),
                Numbers.inRange(flags.getOrDefault("warmup", "0"), "--warmup", 0, MAX_COUNT),
                Numbers.inRange(flags.get("iterations"), "--iterations", 1, MAX_COUNT),
                path(flags, "samples-file"),
                path(flags, "result-file"),
                seed(flags),
                Numbers.positiveSecondsAsNanos(flags.getOrDefault("io-timeout", "30"),
                        "--io-timeout"),
                pollInterval(flags),
                spin(flags),
                nativeLibrary,
                payload,
                (int) Numbers.inRange(flags.getOrDefault("sequence-length",
                        Integer.toString(DriveOptions.DEFAULT_SEQUENCE_LENGTH)), "--sequence-length",
                        0, Structs.MAX_SEQUENCE_LENGTH),
                httpClient,
                warmupSamplesFile(flags), null, study));
    }

    /** --java-binding ffm (default), jni or jni-copy (4.6). */
    static LinuxIpc.Binding javaBinding(Map<String, String> flags) {
        return JavaBinding.parse(flags.getOrDefault("java-binding", "ffm"));
    }

    /**
     * --payload object sends one array each way and the server answers with the request's
     * length (it learns no other size, 4.6): the two sizes must be equal. --payload long sends
     * a Long alone each way: both sizes are its 8 bytes.
     */
    private static DriveOptions checkObjectSizes(DriveOptions options) {
        if (options.longs() && (options.requestSize() != ObjectWire.LONG_SIZE
                || options.responseSize() != ObjectWire.LONG_SIZE)) {
            throw new IllegalArgumentException("--payload long needs --request-size and "
                    + "--response-size 8 (the Long), got " + options.requestSize() + " and "
                    + options.responseSize());
        }
        if (options.objects() && options.requestSize() != options.responseSize()) {
            throw new IllegalArgumentException("--payload object needs --response-size equal to "
                    + "--request-size, got " + options.requestSize() + " and "
                    + options.responseSize());
        }
        return options;
    }

    /** --response-size; with --void or --one-way nothing comes back, so it is absent or 0. */
    private static int responseSize(Map<String, String> flags, boolean structured, Study study) {
        if (!study.voidCalls() && !study.oneWay()) {
            return size(flags, "response-size", structured);
        }
        int size = flags.containsKey("response-size") ? size(flags, "response-size") : 0;
        if (size != 0) {
            throw new IllegalArgumentException("--response-size must be absent or 0 with "
                    + (study.voidCalls() ? "--void" : "--one-way") + ", got " + size);
        }
        return 0;
    }

    /** --http-client okhttp (default) or jdk: rest's client library. */
    static String httpClient(Map<String, String> flags) {
        String httpClient = flags.getOrDefault("http-client", DriveOptions.OKHTTP);
        if (!HTTP_CLIENTS.contains(httpClient)) {
            throw new IllegalArgumentException("--http-client must be okhttp or jdk, got '"
                    + httpClient + "'");
        }
        return httpClient;
    }

    /** --nodelay on (default) or off. */
    static boolean nodelay(Map<String, String> flags) {
        return !choice(flags, "nodelay", "on", "off");
    }

    /** A two-valued flag: false for its default, true for the other value; else a usage error. */
    static boolean choice(Map<String, String> flags, String name, String standard,
            String other) {
        String value = flags.getOrDefault(name, standard);
        if (!value.equals(standard) && !value.equals(other)) {
            throw new IllegalArgumentException("--" + name + " must be " + standard + " or " + other
                    + ", got '" + value + "'");
        }
        return value.equals(other);
    }

    static Path warmupSamplesFile(Map<String, String> flags) {
        return flags.containsKey("warmup-samples-file") ? path(flags, "warmup-samples-file") : null;
    }

    /**
     * Collects {@code --name value} pairs.
     *
     * @throws UsageException on an unknown, repeated or value-less flag, or a missing required one
     */
    static Map<String, String> flags(String[] args, Set<String> known, List<String> required)
            throws UsageException {
        Map<String, String> flags = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            String name = flagName(args[i], known);
            if (flags.containsKey(name)) {
                throw new UsageException("flag --" + name + " given more than once");
            }
            if (SWITCHES.contains(name)) {
                flags.put(name, "");
                i--;
                continue;
            }
            if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
                throw new UsageException("flag --" + name + " needs a value");
            }
            flags.put(name, args[i + 1]);
        }
        for (String name : required) {
            if (!flags.containsKey(name)) {
                throw new UsageException("missing required flag --" + name);
            }
        }
        return flags;
    }

    private static String flagName(String arg, Set<String> known) throws UsageException {
        if (!arg.startsWith("--")) {
            throw new UsageException("unexpected argument '" + arg + "' (flags are --name value)");
        }
        if (arg.contains("=")) {
            throw new UsageException("'" + arg + "': write --name value, not --name=value");
        }
        String name = arg.substring(2);
        if (!known.contains(name)) {
            throw new UsageException("unknown flag " + arg);
        }
        return name;
    }

    /**
     * Checks the endpoint's form when the mechanism is known and has this role; an unknown
     * mechanism, or a server of a drive-only one, is unsupported (exit 7), reported later.
     *
     * @param drive a client's endpoint: for corba the server's IOR, not the HOST:PORT it serves on
     */
    static String endpoint(String mechanism, String endpoint, boolean drive) {
        Mechanism.byName(mechanism).filter(m -> drive || m.serves())
                .ifPresent(m -> m.checkEndpoint(endpoint, drive));
        return endpoint;
    }

    static int size(Map<String, String> flags, String name) {
        return (int) Numbers.inRange(flags.get(name), "--" + name, 0, Frame.MAX_PAYLOAD);
    }

    /** Required for bytes; absent or 0 for a structured payload, whose size is the record's. */
    private static int size(Map<String, String> flags, String name, boolean structured) {
        if (!flags.containsKey(name)) {
            if (structured) {
                return 0;
            }
            throw new IllegalArgumentException("missing required flag --" + name);
        }
        int size = size(flags, name);
        if (structured && size != 0) {
            throw new IllegalArgumentException("--" + name + " must be absent or 0 with a structured "
                    + "--payload, got " + size);
        }
        return size;
    }

    /** --poll-interval-us: unsigned decimal microseconds, at least 1; kept in nanoseconds. */
    static long pollInterval(Map<String, String> flags) {
        return 1000L * Numbers.inRange(flags.getOrDefault("poll-interval-us", "2000"),
                "--poll-interval-us", 1, Long.MAX_VALUE / 1000);
    }

    /** --spin-us: unsigned decimal microseconds (0: sleep at once); kept in nanoseconds. */
    static long spin(Map<String, String> flags) {
        return 1000L * Numbers.inRange(flags.getOrDefault("spin-us", "50"), "--spin-us", 0,
                Long.MAX_VALUE / 1000);
    }

    static long seed(Map<String, String> flags) {
        return Numbers.unsigned(flags.getOrDefault("seed", "1"), "--seed");
    }

    static Path path(Map<String, String> flags, String name) {
        String value = flags.get(name);
        if (value.isEmpty()) {
            throw new IllegalArgumentException("--" + name + " must not be empty");
        }
        return Path.of(value);
    }
}
