package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.frame.Vectors;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.transport.Fifo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Client against server in one JVM, over every mechanism, through the real transports. */
class RoundTripTest {
    private static final int MIB = 1 << 20;
    private static final long WARMUP = 3;
    private static final long ITERATIONS = 7;

    @TempDir
    Path dir;

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (Mechanism m : linkMechanisms()) {
            int big = Math.min(m.maxPayload(), MIB);
            for (int[] sizes : new int[][] {{0, 0}, {16, 16}, {big, 16}, {16, big}, {big, big}}) {
                cases.add(Arguments.of(m, sizes[0], sizes[1]));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("cases")
    void roundTripsSucceedAndRecordEverySample(Mechanism mechanism, int requestSize, int responseSize)
            throws Throwable {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        try (ServerHarness server = ServerHarness.start(mechanism, dir, false)) {
            DriveOptions options = drive(server, requestSize, responseSize);
            assertEquals(0, new Client(options, err.stream).run(), err.text());
            JsonNode result = result(options);
            assertEquals("ok", result.get("status").asText());
            assertTrue(result.get("error_kind").isNull());
            assertEquals(ITERATIONS, result.get("samples").asLong());
            assertEquals(requestSize, result.get("request_size").asInt());
            assertEquals(mechanism.label(), result.get("mechanism").asText());
            for (long nanos : samples(options)) {
                assertTrue(nanos > 0 && nanos < 10_000_000_000L, "sample " + nanos);
            }
            assertEquals("", server.diagnostics.text());
        }
        assertEquals("", err.text());
    }

    /** One rr client against the server: it succeeds and records every sample. */
    static void assertRoundTrips(ServerHarness server, Path outputDir, int requestSize,
            int responseSize, Loopback.Diagnostics err) throws IOException {
        DriveOptions options = options(server, outputDir, requestSize, responseSize);
        assertEquals(0, new Client(options, err.stream).run(), err.text());
        assertEquals(ITERATIONS, result(options).get("samples").asLong());
    }

    /** Each mechanism with each size (request and response alike), as parameterized cases. */
    static Stream<Arguments> everySize(List<Mechanism> mechanisms, int... sizes) {
        List<Arguments> cases = new ArrayList<>();
        for (Mechanism m : mechanisms) {
            for (int size : sizes) {
                cases.add(Arguments.of(m, size));
            }
        }
        return cases.stream();
    }

    /**
     * The mechanisms of section 2's frames; in-process: InProcessTest; RPC: RpcTest; activemq,
     * which needs a broker: ActiveMqTest; Redis, which needs its server: RedisTest; NATS
     * likewise: NatsTest.
     */
    static List<Mechanism> linkMechanisms() {
        return java.util.Arrays.stream(Mechanism.values()).filter(Mechanism::hasLink)
                .filter(m -> !java.util.Set.of(Mechanism.ACTIVEMQ, Mechanism.REDIS_TCP,
                        Mechanism.REDIS_UDS, Mechanism.NATS).contains(m)).toList();
    }

    @ParameterizedTest
    @MethodSource("linkMechanisms")
    void flippedResponseByteIsAPayloadMismatch(Mechanism mechanism) throws Throwable {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        try (ServerHarness server = ServerHarness.start(mechanism, dir, true)) {
            DriveOptions options = drive(server, 16, 16);
            assertEquals(3, new Client(options, err.stream).run());
            assertEquals("ipclab-peer: payload-mismatch: payload mismatch: response sequence 0 differs"
                    + " from the expected bytes at offset 15" + System.lineSeparator(), err.text());
            JsonNode result = result(options);
            assertEquals("error", result.get("status").asText());
            assertEquals("payload-mismatch", result.get("error_kind").asText());
            assertEquals(0, result.get("samples").asLong());
            assertEquals(0, Files.size(options.samplesFile()));
        }
    }

    @Test
    void flippedByteInsideTheStampIsFoundToo() throws Throwable {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        try (ServerHarness server = ServerHarness.start(Mechanism.TCP, dir, true)) {
            assertEquals(3, new Client(drive(server, 16, 3), err.stream).run());
            assertTrue(err.text().contains("at offset 2"), err.text());
        }
    }

    @Test
    void serverKeepsServingAfterAMalformedClient() throws Throwable {
        try (ServerHarness server = ServerHarness.start(Mechanism.UDS, dir, false)) {
            try (var bad = Mechanism.UDS.connect(server.clientEndpoint, 0)) {
                bad.send(ByteBuffer.wrap(Vectors.hex(Vectors.list("malformed").get(0), "hex")));
                ByteBuffer none = Frame.allocate(Frame.HEADER_SIZE);
                assertThrowsEof(() -> bad.receive(none, Frame.HEADER_SIZE));
            }
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(0, new Client(drive(server, 16, 16), err.stream).run(), err.text());
            assertEquals("ipclab-peer: rejected frame: bad magic" + System.lineSeparator(),
                    server.diagnostics.text());
        }
    }

    @Test
    void outputFilesAreOwnerOnly() throws Throwable {
        try (ServerHarness server = ServerHarness.start(Mechanism.TCP, dir, false)) {
            DriveOptions options = drive(server, 16, 16);
            assertEquals(0, new Client(options, new Loopback.Diagnostics().stream).run());
            for (Path file : List.of(options.samplesFile(), options.resultFile())) {
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            }
            try (Stream<Path> files = Files.list(dir)) {
                assertEquals(List.of(options.resultFile(), options.samplesFile()),
                        files.filter(Files::isRegularFile).sorted().toList(), "no temporary file is left");
            }
        }
    }

    @Test
    void udsSocketFileIsOwnerOnly() throws Throwable {
        try (ServerHarness server = ServerHarness.start(Mechanism.UDS, dir, false)) {
            assertEquals("rw-------", PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(Path.of(server.clientEndpoint))));
        }
    }

    @Test
    void fifosAreOwnerOnlyAndExistingOnesAreRefused() throws Throwable {
        try (ServerHarness server = ServerHarness.start(Mechanism.FIFO, dir, false)) {
            for (String name : List.of(Fifo.REQUEST, Fifo.RESPONSE)) {
                Path fifo = Path.of(server.clientEndpoint, name);
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(fifo)));
            }
            PeerException e = org.junit.jupiter.api.Assertions.assertThrows(PeerException.class,
                    () -> Servers.open(new ServeOptions("fifo", server.clientEndpoint, 1, false),
                            System.err));
            assertEquals(ErrorKind.IO, e.kind());
        }
    }

    /** Output files go to the test's directory; the server's endpoint lives in a subdirectory. */
    private DriveOptions drive(ServerHarness server, int requestSize, int responseSize) {
        return options(server, dir, requestSize, responseSize);
    }

    static DriveOptions options(ServerHarness server, Path outputDir, int requestSize, int responseSize) {
        String tag = server.mechanism.label() + "-" + requestSize + "-" + responseSize;
        return new DriveOptions(server.mechanism.label(), server.clientEndpoint, "rr", requestSize,
                responseSize, WARMUP, ITERATIONS, outputDir.resolve(tag + ".samples"),
                outputDir.resolve(tag + ".json"), 1, 5_000_000_000L);
    }

    static JsonNode result(DriveOptions options) throws IOException {
        return new ObjectMapper().readTree(options.resultFile().toFile());
    }

    static long[] samples(DriveOptions options) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(options.samplesFile()))
                .order(ByteOrder.LITTLE_ENDIAN);
        long[] values = new long[bytes.remaining() / 8];
        bytes.asLongBuffer().get(values);
        return values;
    }

    private static void assertThrowsEof(org.junit.jupiter.api.function.Executable call) {
        org.junit.jupiter.api.Assertions.assertThrows(java.io.EOFException.class, call);
    }
}
