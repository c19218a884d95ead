package dev.ipclab.peer;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.pattern.Samples;
import dev.ipclab.peer.pattern.StreamShape;
import dev.ipclab.peer.transport.Numbers;
import java.util.List;
import java.util.Map;

/**
 * The command line of pattern stream (PROTOCOL.md 1 and 11.1), beside {@link Cli}: its entry in
 * {@link Pattern} has already refused the round trips' flags.
 */
final class StreamCli {
    private StreamCli() {}

    /** {@code --pattern stream}: S, N, W (1 … N, default 10 or N if fewer) and the common flags. */
    static DriveOptions drive(Map<String, String> flags) {
        for (String name : List.of("message-size", "messages")) {
            if (!flags.containsKey(name)) {
                throw new IllegalArgumentException("missing required flag --" + name
                        + " (--pattern stream)");
            }
        }
        long messages = Numbers.inRange(flags.get("messages"), "--messages", 1, Cli.MAX_COUNT);
        long windows = flags.containsKey("windows")
                ? Numbers.inRange(flags.get("windows"), "--windows", 1, messages)
                : Math.min(DriveOptions.DEFAULT_WINDOWS, messages);
        if (windows > Samples.MAX) {
            throw new IllegalArgumentException("--windows is at most " + Samples.MAX);
        }
        String mechanism = flags.get("mechanism");
        return new DriveOptions(mechanism, Cli.endpoint(mechanism, flags.get("endpoint"), true),
                Pattern.STREAM.label(), 0, 0,
                Numbers.inRange(flags.getOrDefault("warmup", "0"), "--warmup", 0, Cli.MAX_COUNT),
                0, Cli.path(flags, "samples-file"), Cli.path(flags, "result-file"),
                Cli.seed(flags),
                Numbers.positiveSecondsAsNanos(flags.getOrDefault("io-timeout", "30"),
                        "--io-timeout"),
                Cli.pollInterval(flags), Cli.spin(flags), null, DriveOptions.BYTES,
                DriveOptions.DEFAULT_SEQUENCE_LENGTH, DriveOptions.OKHTTP,
                Cli.warmupSamplesFile(flags),
                new StreamShape((int) Numbers.inRange(flags.get("message-size"), "--message-size",
                        1, Frame.MAX_PAYLOAD), messages, windows),
                Study.of(flags, false));
    }
}
