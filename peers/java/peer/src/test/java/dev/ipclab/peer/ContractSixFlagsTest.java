package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.pattern.StreamShape;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Loopback;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The flags of contract version 6 that are not the in-process calls' (InProcessTest), the
 * records' (StructsTest, RpcTest), the bindings' (JavaBindingTest) or the objects'
 * (ObjectPayloadTest): --read-size and the rr server's --backlog (serve), --source (drive, short
 * over tcp), and --value-range / --records as command-line rules.
 */
class ContractSixFlagsTest {
    private static final String[] DRIVE = {"drive", "--mechanism", "tcp", "--endpoint",
        "127.0.0.1:9", "--request-size", "16", "--response-size", "16", "--iterations", "10",
        "--samples-file", "/tmp/s", "--result-file", "/tmp/r"};

    @TempDir
    Path dir;

    @Test
    void serveFlagsParseWithTheirDefaultsAndRanges() throws UsageException {
        ServeOptions plain = serve("tcp", "127.0.0.1:0");
        assertEquals(0, plain.readSize());
        assertEquals(0, plain.backlog(), "not given");
        assertEquals(512, plain.listenBacklog());
        ServeOptions explicit = serve("tcp", "127.0.0.1:0", "--read-size", "0", "--backlog", "512");
        assertEquals(512, explicit.backlog());
        assertEquals(plain.settings(), explicit.settings(), "the defaults are today's");
        ServeOptions tuned = serve("tcp", "127.0.0.1:0", "--read-size", "134217728", "--backlog",
                "65535");
        assertEquals(134217728, tuned.readSize());
        assertEquals(65535, tuned.backlog());
        assertEquals(1, serve("uds", "/tmp/x", "--backlog", "1").backlog());
        assertNullBurst(serve("uds", "/tmp/x", "--backlog", "50"));
        for (String[] bad : new String[][] {{"--read-size", "134217729"}, {"--read-size", "-1"},
                {"--read-size", "1k"}, {"--backlog", "0"}, {"--backlog", "65536"},
                {"--backlog", ""}}) {
            String[] args = concat(new String[] {"serve", "--mechanism", "tcp", "--endpoint",
                "127.0.0.1:0"}, bad);
            UsageException e = assertThrows(UsageException.class, () -> Cli.parse(args),
                    String.join(" ", bad));
            assertTrue(e.line().contains(bad[0]), e.line());
        }
    }

    private static void assertNullBurst(ServeOptions options) {
        assertEquals(null, options.burst(), "--backlog alone makes no burst server");
    }

    /**
     * Where it means nothing, before listening: --read-size at a value other than 0, and the rr
     * server's --backlog at any value, 512 too (section 1: given, it is unsupported).
     */
    @Test
    void readSizeAndBacklogElsewhereAreUnsupported() throws Exception {
        for (String[] args : new String[][] {
                {"sysv-mq", "auto", "--read-size", "1024"},
                {"udp", "127.0.0.1:0", "--read-size", "1024"},
                {"shm", "auto", "--read-size", "1"},
                {"file", dir.toString(), "--read-size", "1"},
                {"fifo", dir.toString(), "--backlog", "50"},
                {"udp", "127.0.0.1:0", "--backlog", "512"},
                {"sysv-mq", "auto", "--backlog", "50"},
                {"udp", "127.0.0.1:0", "--backlog", "50"},
                {"tcp", "127.0.0.1:0", "--read-size", "1024", "--server-model", "thread",
                    "--connections", "1", "--phases-file", dir.resolve("p").toString()}}) {
            ServeOptions options = serve(args[0], args[1], Arrays.copyOfRange(args, 2, args.length));
            PeerException e = assertThrows(PeerException.class,
                    () -> Servers.open(options, new Loopback.Diagnostics().stream),
                    String.join(" ", args));
            assertEquals(ErrorKind.UNSUPPORTED, e.kind(), e.getMessage());
            assertTrue(e.getMessage().contains(args[2]), e.getMessage());
        }
    }

    /**
     * --read-size over each byte stream: the stream arrives whole and checked, with messages
     * smaller and larger than the read size and one that is not a multiple of it.
     */
    @ParameterizedTest(name = "{0} {1} B messages, read size {2}")
    @CsvSource({"TCP,1000,1024", "TCP,10000,1024", "UDS,4097,1024", "PIPE,3000,1000",
            "FIFO,100000,65536", "TCP,7,1"})
    void streamsArriveWholeWithAReadSize(Mechanism mechanism, int size, int readSize)
            throws Exception {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, Fault.NONE, 0,
                readSize)) {
            DriveOptions options = DriveOptions.streaming(mechanism.label(), server.clientEndpoint,
                    new StreamShape(size, 500, 5), 20, dir.resolve("s"), dir.resolve("r.json"), 1,
                    30_000_000_000L);
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(0, new Client(options, err.stream).run(), err.text());
            assertEquals(500, RoundTripTest.result(options).get("messages").asLong());
        }
    }

    /** rr, short and stream against an rr server whose listening socket has --backlog 1. */
    @ParameterizedTest
    @EnumSource(names = {"TCP", "UDS"})
    void aServerWithASmallBacklogServesEveryPattern(Mechanism mechanism) throws Exception {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, Fault.NONE, 1, 0)) {
            assertBacklog(server, mechanism, 1);
            for (String[] pattern : new String[][] {{"--pattern", "rr"}, {"--pattern", "short"}}) {
                InProcessDrive run = drive(mechanism.label(), server.clientEndpoint,
                        concat(pattern, "--request-size", "100", "--response-size", "100",
                                "--iterations", "30"));
                assertEquals(0, run.code(), run.error());
            }
        }
    }

    /**
     * The listen() backlog as the kernel reports it: ss shows a listening socket's backlog in
     * its Send-Q column. Skipped where ss is missing.
     */
    private static void assertBacklog(ServerHarness server, Mechanism mechanism, int backlog)
            throws IOException, InterruptedException {
        boolean tcp = mechanism == Mechanism.TCP;
        String local = server.clientEndpoint;
        Process ss;
        try {
            ss = new ProcessBuilder("ss", "-lnH", tcp ? "-t" : "-x").start();
        } catch (IOException e) {
            assumeTrue(false, "no ss: " + e.getMessage());
            return;
        }
        String out = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        ss.waitFor();
        String line = out.lines().filter(l -> l.contains(local + " ") || l.endsWith(local))
                .findFirst().orElseThrow(() -> new AssertionError(local + " not in ss:\n" + out));
        String[] columns = line.trim().split("\\s+");
        // tcp: State Recv-Q Send-Q Local...; unix (-x): Netid State Recv-Q Send-Q Local...
        assertEquals(Integer.toString(backlog), columns[tcp ? 2 : 3], line);
    }

    @Test
    void sourceIsShortOnlyAndOneIsTcpOnly() throws Exception {
        assertFalse(((DriveOptions) Cli.parse(concat(DRIVE, "--pattern", "short"))).study()
                .oneSource());
        assertTrue(((DriveOptions) Cli.parse(concat(DRIVE, "--pattern", "short", "--source",
                "one"))).study().oneSource());
        assertEquals(Cli.parse(concat(DRIVE, "--pattern", "short")),
                Cli.parse(concat(DRIVE, "--pattern", "short", "--source", "rotate")));
        for (String pattern : List.of("rr", "stream", "load")) {
            String[] args = pattern.equals("stream")
                    ? new String[] {"drive", "--pattern", "stream", "--mechanism", "tcp",
                        "--endpoint", "127.0.0.1:9", "--message-size", "1", "--messages", "1",
                        "--samples-file", "s", "--result-file", "r", "--source", "rotate"}
                    : pattern.equals("load")
                    ? new String[] {"drive", "--pattern", "load", "--mechanism", "tcp",
                        "--endpoint", "127.0.0.1:9", "--clients", "1", "--rate", "1",
                        "--duration-ms", "1", "--records-file", "x", "--samples-file", "s",
                        "--result-file", "r", "--source", "one"}
                    : concat(DRIVE, "--source", "one");
            UsageException e = assertThrows(UsageException.class, () -> Cli.parse(args), pattern);
            assertTrue(e.line().contains("--source"), e.line());
        }
        assertThrows(UsageException.class, () -> Cli.parse(concat(DRIVE, "--pattern", "short",
                "--source", "kernel")));
        InProcessDrive run = drive("uds", "/nonexistent/s", "--pattern", "short", "--source",
                "one", "--request-size", "1", "--response-size", "1", "--iterations", "1");
        assertEquals(7, run.code(), run.error());
        assertTrue(run.error().contains("--source one is for short over tcp only"), run.error());
    }

    /** --source one: short over tcp, every connection from 127.0.0.1, one-way too. */
    @Test
    void shortOverTcpFromOneSource() throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.TCP, dir, Fault.NONE)) {
            InProcessDrive echo = drive("tcp", server.clientEndpoint, "--pattern", "short",
                    "--source", "one", "--request-size", "100", "--response-size", "1000",
                    "--warmup", "5", "--iterations", "50");
            assertEquals(0, echo.code(), echo.error());
            InProcessDrive oneWay = drive("tcp", server.clientEndpoint, "--pattern", "short",
                    "--source", "one", "--one-way", "--request-size", "100", "--iterations", "20");
            assertEquals(0, oneWay.code(), oneWay.error());
        }
    }

    /** --value-range and --records describe 10.2's records: not for bytes, objects or streams. */
    @Test
    void valueRangeAndRecordsNeedAStructuredPayload() throws Exception {
        String[] rest = {"drive", "--mechanism", "grpc", "--endpoint", "127.0.0.1:9",
            "--iterations", "1", "--samples-file", "s", "--result-file", "r"};
        DriveOptions small = (DriveOptions) Cli.parse(concat(rest, "--payload", "small",
                "--value-range", "non-negative", "--records", "per-call"));
        assertTrue(small.study().nonNegative());
        assertTrue(small.study().recordsPerCall());
        assertTrue(small.rpc().nonNegative() && small.rpc().recordsPerCall());
        DriveOptions plain = (DriveOptions) Cli.parse(concat(rest, "--payload", "large"));
        assertFalse(plain.study().nonNegative() || plain.study().recordsPerCall());
        assertEquals(plain, Cli.parse(concat(rest, "--payload", "large", "--value-range", "full",
                "--records", "one")));
        assertEquals(Cli.parse(DRIVE), Cli.parse(concat(DRIVE, "--value-range", "full",
                "--records", "one")), "the defaults are accepted with bytes");
        for (String[] flag : new String[][] {{"--value-range", "non-negative"},
                {"--records", "per-call"}}) {
            UsageException e = assertThrows(UsageException.class,
                    () -> Cli.parse(concat(DRIVE, flag)));
            assertTrue(e.line().contains("structured payloads"), e.line());
            assertThrows(UsageException.class, () -> Cli.parse(concat(DRIVE, concat(flag,
                    "--payload", "object"))));
            assertThrows(UsageException.class, () -> Cli.parse(concat(new String[] {"drive",
                "--pattern", "stream", "--mechanism", "tcp", "--endpoint", "127.0.0.1:9",
                "--message-size", "1", "--messages", "1", "--samples-file", "s",
                "--result-file", "r"}, flag)));
        }
        for (String[] bad : new String[][] {{"--value-range", "positive"},
                {"--records", "each"}, {"--records", ""}}) {
            UsageException e = assertThrows(UsageException.class,
                    () -> Cli.parse(concat(rest, concat(bad, "--payload", "small"))));
            assertTrue(e.line().contains(bad[0] + " must be"), e.line());
        }
    }

    private InProcessDrive drive(String mechanism, String endpoint, String... more) {
        return InProcessDrive.run(dir, mechanism, endpoint, more);
    }

    private static ServeOptions serve(String mechanism, String endpoint, String... more)
            throws UsageException {
        return (ServeOptions) Cli.parse(concat(new String[] {"serve", "--mechanism", mechanism,
            "--endpoint", endpoint}, more));
    }

    private static String[] concat(String[] first, String... more) {
        String[] all = Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }
}
