package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ipclab.peer.burst.BurstOptions;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.server.Loopback;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CliTest {
    private static final String[] DRIVE = {"drive", "--mechanism", "tcp", "--endpoint", "127.0.0.1:9",
        "--request-size", "16", "--response-size", "1024", "--iterations", "10",
        "--samples-file", "/tmp/s", "--result-file", "/tmp/r"};

    @Test
    void parsesServeWithDefaults() throws UsageException {
        ServeOptions serve = (ServeOptions) Cli.parse(
                new String[] {"serve", "--mechanism", "uds", "--endpoint", "/tmp/x.sock"});
        assertEquals(new ServeOptions("uds", "/tmp/x.sock", 1, false), serve);
    }

    @Test
    void parsesServeWithEveryFlag() throws UsageException {
        ServeOptions serve = (ServeOptions) Cli.parse(new String[] {"serve", "--fault",
            "flip-response-byte", "--seed", "18446744073709551615", "--mechanism", "pipe",
            "--endpoint", "fd:3,4"});
        assertEquals(new ServeOptions("pipe", "fd:3,4", -1L, true), serve);
    }

    @Test
    void parsesDriveWithDefaults() throws UsageException {
        DriveOptions drive = assertInstanceOf(DriveOptions.class, Cli.parse(DRIVE));
        assertEquals(new DriveOptions("tcp", "127.0.0.1:9", "rr", 16, 1024, 0, 10, Path.of("/tmp/s"),
                Path.of("/tmp/r"), 1, 30_000_000_000L), drive);
    }

    @Test
    void parsesDriveOptionalFlags() throws UsageException {
        DriveOptions drive = (DriveOptions) Cli.parse(with("--warmup", "5", "--seed", "0",
                "--pattern", "rr", "--io-timeout", "0.5"));
        assertEquals(5, drive.warmup());
        assertEquals(0, drive.seed());
        assertEquals(500_000_000L, drive.ioTimeoutNanos());
    }

    @Test
    void acceptsTheLargestSizes() throws UsageException {
        DriveOptions drive = (DriveOptions) Cli.parse(replace(replace(DRIVE, "--request-size",
                "134217728"), "--response-size", "0"));
        assertEquals(Frame.MAX_PAYLOAD, drive.requestSize());
        assertEquals(0, drive.responseSize());
    }

    @Test
    void unknownMechanismAndPatternAreLeftForUnsupported() throws UsageException {
        DriveOptions drive = (DriveOptions) Cli.parse(with("--pattern", "burst"));
        assertEquals("burst", drive.pattern());
        ServeOptions serve = (ServeOptions) Cli.parse(
                new String[] {"serve", "--mechanism", "ctypes", "--endpoint", "anything"});
        assertEquals("ctypes", serve.mechanism());
    }

    /** A pattern's own flags and the ones it refuses are its Pattern entry's (one message each). */
    @Test
    void patternFlagsComeFromThePatternTable() {
        assertUsage(with("--void", "--pattern", "short"),
                "--void is a flag of --pattern rr only, not of --pattern short");
        assertUsage(with("--one-way"), "--one-way is a flag of --pattern short only, not of --pattern rr");
        assertUsage(with("--source", "one", "--pattern", "burst"),
                "--source is a flag of --pattern short only, not of --pattern burst");
        assertUsage(with("--windows", "2"), "--windows is a flag of --pattern stream only, not of --pattern rr");
        assertUsage(with("--clients", "2"), "--clients is a flag of --pattern load only, not of --pattern rr");
        assertUsage(with("--pattern", "stream"), "--request-size is not a flag of --pattern stream");
        assertUsage(with("--pattern", "load"), "--iterations is not a flag of --pattern load");
        assertUsage(new String[] {"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
            "--pattern", "rr", "--server-model", "thread"}, "serve --pattern takes only load, got 'rr'");
    }

    @Test
    void rejectsMissingOrUnknownSubcommand() {
        assertUsage(new String[0], "missing subcommand");
        assertUsage(new String[] {"run", "--mechanism", "tcp"}, "unknown subcommand");
        assertUsage(new String[] {"--mechanism", "tcp", "serve"}, "unknown subcommand");
    }

    @Test
    void rejectsUnknownFlags() {
        assertUsage(with("--verbose", "1"), "unknown flag --verbose");
        assertUsage(new String[] {"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
            "--iterations", "3"}, "unknown flag --iterations");
        assertUsage(new String[] {"drive", "--mechanism", "tcp", "--fault", "none"}, "unknown flag --fault");
    }

    @Test
    void rejectsEqualsSyntaxRepeatsAndMissingValues() {
        assertUsage(with("--seed=3"), "not --name=value");
        assertUsage(with("--mechanism", "udp"), "given more than once");
        assertUsage(with("--seed"), "needs a value");
        assertUsage(with("--seed", "--warmup", "3"), "needs a value");
        assertUsage(with("stray"), "unexpected argument");
    }

    @ParameterizedTest
    @ValueSource(strings = {"mechanism", "endpoint", "request-size", "response-size", "iterations",
        "samples-file", "result-file"})
    void rejectsEachMissingRequiredDriveFlag(String flag) {
        List<String> args = new ArrayList<>(Arrays.asList(DRIVE));
        int at = args.indexOf("--" + flag);
        args.remove(at + 1);
        args.remove(at);
        assertUsage(args.toArray(String[]::new), "missing required flag --" + flag);
    }

    @Test
    void rejectsMissingRequiredServeFlags() {
        assertUsage(new String[] {"serve", "--mechanism", "tcp"}, "missing required flag --endpoint");
        assertUsage(new String[] {"serve", "--endpoint", "x"}, "missing required flag --mechanism");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "+1", "1.0", " 1", "1 ", "", "1e3", "0x10", "١٢", "ten",
        "18446744073709551616", "99999999999999999999999"})
    void rejectsBadNumbers(String value) {
        assertUsage(with("--seed", value), "--seed");
        assertUsage(replace(DRIVE, "--iterations", value), "--iterations");
    }

    @Test
    void rejectsNumbersOutOfTheirRange() {
        assertUsage(replace(DRIVE, "--request-size", "134217729"), "--request-size must be between");
        assertUsage(replace(DRIVE, "--response-size", "4294967296"), "--response-size must be between");
        assertUsage(replace(DRIVE, "--iterations", "0"), "--iterations must be between 1");
        assertUsage(with("--warmup", "18446744073709551615"), "--warmup must be between");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "0.0", "-1", ".5", "5.", "1e1", "30s", "", "1,5"})
    void rejectsBadIoTimeouts(String value) {
        assertUsage(with("--io-timeout", value), "--io-timeout");
    }

    @Test
    void rejectsBadFaultAndEndpoints() {
        assertUsage(new String[] {"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
            "--fault", "drop"}, "--fault must be");
        assertUsage(replace(DRIVE, "--endpoint", "127.0.0.1"), "HOST:PORT");
        assertUsage(replace(DRIVE, "--endpoint", "127.0.0.1:65536"), "port must be at most");
        assertUsage(replace(DRIVE, "--endpoint", ":80"), "HOST:PORT");
        assertUsage(replace(DRIVE, "--endpoint", "::1:80"), "brackets");
        assertUsage(new String[] {"serve", "--mechanism", "pipe", "--endpoint", "3,4"}, "fd:R,W");
        assertUsage(new String[] {"serve", "--mechanism", "pipe", "--endpoint", "fd:3"}, "fd:R,W");
        assertUsage(new String[] {"serve", "--mechanism", "pipe", "--endpoint", "fd:3,-4"}, "descriptor");
        assertUsage(new String[] {"serve", "--mechanism", "fifo", "--endpoint", ""}, "needs a value|non-empty");
    }

    @Test
    void acceptsBracketedIpv6() throws UsageException {
        assertEquals("[::1]:80", ((DriveOptions) Cli.parse(replace(DRIVE, "--endpoint", "[::1]:80")))
                .endpoint());
    }

    @Test
    void usageFromMainIsOneLineAndExitTwo() {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(2, Main.run(new String[] {"serve", "--mechanism"}, err.stream));
        String text = err.text();
        assertTrue(text.startsWith("ipclab-peer: usage: "), text);
        assertEquals(1, text.lines().count());
        assertFalse(text.contains("Exception"), text);
    }

    @Test
    void burstFlagsParseAndNeedServerModel() throws UsageException {
        ServeOptions serve = (ServeOptions) Cli.parse(new String[] {"serve", "--mechanism", "tcp",
            "--endpoint", "127.0.0.1:0", "--server-model", "nio", "--connections", "1000",
            "--phases-file", "/tmp/p.csv", "--backlog", "1"});
        assertEquals(new BurstOptions("nio", 1000, Path.of("/tmp/p.csv"), 1, 4), serve.burst());
        assertNull(((ServeOptions) Cli.parse(new String[] {"serve", "--mechanism", "tcp",
            "--endpoint", "127.0.0.1:0"})).burst());
        for (String[] bad : List.of(new String[] {"--workers", "2"},
                new String[] {"--server-model", "nio", "--phases-file", "/tmp/p"},
                new String[] {"--server-model", "nio", "--connections", "1", "--phases-file", "/tmp/p",
                    "--backlog", "0"})) {
            String[] args = new String[bad.length + 5];
            System.arraycopy(new String[] {"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0"},
                    0, args, 0, 5);
            System.arraycopy(bad, 0, args, 5, bad.length);
            assertThrows(UsageException.class, () -> Cli.parse(args), String.join(" ", bad));
        }
    }

    private static String[] with(String... extra) {
        String[] args = Arrays.copyOf(DRIVE, DRIVE.length + extra.length);
        System.arraycopy(extra, 0, args, DRIVE.length, extra.length);
        return args;
    }

    /** ARGS with the value after FLAG replaced (LoadTest uses it too). */
    static String[] replace(String[] args, String flag, String value) {
        String[] copy = args.clone();
        copy[Arrays.asList(copy).indexOf(flag) + 1] = value;
        return copy;
    }

    private static void assertUsage(String[] args, String messagePart) {
        UsageException e = assertThrows(UsageException.class, () -> Cli.parse(args));
        assertTrue(e.getMessage().matches("(?s).*(" + messagePart + ").*"),
                "'" + e.getMessage() + "' should mention '" + messagePart + "'");
    }
}
