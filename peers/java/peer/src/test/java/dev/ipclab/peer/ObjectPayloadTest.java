package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ipclab.peer.server.Loopback;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** --payload object (PROTOCOL.md 4.6): a Java client and server exchanging serialized objects. */
class ObjectPayloadTest {
    private static final List<Mechanism> MECHANISMS = List.of(Mechanism.TCP, Mechanism.FIFO,
            Mechanism.SYSV_MQ, Mechanism.SYSV_SHM);

    @TempDir
    Path dir;

    /** Sizes within one message, across several queue messages (8192) and shm slots (1 MiB). */
    static Stream<Arguments> cases() {
        return RoundTripTest.everySize(MECHANISMS, 0, 40, 40000, (1 << 20) + 3);
    }

    private DriveOptions drive(ServerHarness server, int size, String... extra) {
        return drive(server, "object", size, extra);
    }

    private DriveOptions drive(ServerHarness server, String payload, int size, String... extra) {
        String tag = server.mechanism.label() + "-" + payload + "-" + size + "-" + extra.length;
        List<String> args = new ArrayList<>(List.of("drive", "--mechanism", server.mechanism.label(),
                "--endpoint", server.clientEndpoint, "--request-size", Integer.toString(size),
                "--response-size", Integer.toString(size), "--iterations", "7", "--warmup", "3",
                "--samples-file", dir.resolve(tag + ".samples").toString(),
                "--result-file", dir.resolve(tag + ".json").toString(), "--payload", payload,
                "--io-timeout", "10"));
        args.addAll(List.of(extra));
        try {
            return (DriveOptions) Cli.parse(args.toArray(String[]::new));
        } catch (UsageException e) {
            throw new AssertionError(e.line());
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void objectRoundTripsSucceedAndRecordEverySample(Mechanism mechanism, int size)
            throws Throwable {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        try (ServerHarness server = ServerHarness.start(mechanism, dir, false)) {
            DriveOptions options = drive(server, size);
            assertEquals(0, new Client(options, err.stream).run(), err.text());
            JsonNode result = RoundTripTest.result(options);
            assertEquals("ok", result.get("status").asText());
            assertEquals("object", result.get("payload").asText());
            assertEquals(size, result.get("request_size").asInt());
            assertTrue(result.get("sequence_length").isNull());
            assertEquals(7, RoundTripTest.samples(options).length);
            assertEquals("", server.diagnostics.text());
        }
        assertEquals("", err.text());
    }

    @Test
    void oneServerServesObjectsAndFramesOneClientAfterTheOther() throws Throwable {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        try (ServerHarness server = ServerHarness.start(Mechanism.SYSV_MQ, dir, false)) {
            assertEquals(0, new Client(drive(server, 100), err.stream).run(), err.text());
            RoundTripTest.assertRoundTrips(server, dir, 100, 100, err);
            assertEquals(0, new Client(drive(server, 9000), err.stream).run(), err.text());
            assertEquals("", server.diagnostics.text());
        }
    }

    @ParameterizedTest
    @MethodSource("mechanisms")
    void aFlippedResponseByteIsAPayloadMismatch(Mechanism mechanism) throws Throwable {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        try (ServerHarness server = ServerHarness.start(mechanism, dir, true)) {
            DriveOptions options = drive(server, 40);
            assertEquals(3, new Client(options, err.stream).run());
            assertEquals("ipclab-peer: payload-mismatch: payload mismatch: response sequence 0 "
                    + "differs from the expected bytes at offset 39" + System.lineSeparator(), err.text());
            assertEquals(0, RoundTripTest.samples(options).length);
        }
    }

    static List<Mechanism> mechanisms() {
        return MECHANISMS;
    }

    /**
     * --payload long (Wells' minimal data): the String "long", then a Long alone each way; the
     * same server serves an object client and a frame client before and after it.
     */
    @ParameterizedTest
    @MethodSource("mechanisms")
    void longRoundTripsAmongTheOtherClients(Mechanism mechanism) throws Throwable {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        try (ServerHarness server = ServerHarness.start(mechanism, dir, false)) {
            assertEquals(0, new Client(drive(server, 100), err.stream).run(), err.text());
            DriveOptions options = drive(server, "long", 8);
            assertEquals(0, new Client(options, err.stream).run(), err.text());
            JsonNode result = RoundTripTest.result(options);
            assertEquals("ok", result.get("status").asText());
            assertEquals("long", result.get("payload").asText());
            assertEquals(8, result.get("request_size").asInt());
            assertEquals(7, RoundTripTest.samples(options).length);
            if (mechanism != Mechanism.FIFO) {  // fifo's server serves one client
                RoundTripTest.assertRoundTrips(server, dir, 100, 100, err);
                assertEquals(0, new Client(drive(server, "long", 8), err.stream).run(), err.text());
            }
            assertEquals("", server.diagnostics.text());
        }
        assertEquals("", err.text());
    }

    @Test
    void longNeedsEightBytesEachWayAndObjectsMechanisms() throws Throwable {
        for (int[] sizes : new int[][] {{8, 9}, {0, 0}, {16, 16}, {8, 0}}) {
            String[] args = {"drive", "--mechanism", "tcp", "--endpoint", "127.0.0.1:9",
                "--request-size", Integer.toString(sizes[0]), "--response-size",
                Integer.toString(sizes[1]), "--iterations", "1", "--samples-file", "s",
                "--result-file", "r", "--payload", "long"};
            UsageException e = org.junit.jupiter.api.Assertions.assertThrows(UsageException.class,
                    () -> Cli.parse(args));
            assertTrue(e.line().contains("--payload long needs --request-size and --response-size 8"),
                    e.line());
        }
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        try (ServerHarness server = ServerHarness.start(Mechanism.UDS, dir, false)) {
            assertEquals(7, new Client(drive(server, "long", 8), err.stream).run());
        }
    }

    /** In long mode only Longs come; another first String or a byte[] later ends that client. */
    @Test
    void aLongClientSendingOtherObjectsIsRefusedAndTheServerGoesOn() throws Throwable {
        try (ServerHarness server = ServerHarness.start(Mechanism.TCP, dir, false)) {
            var at = dev.ipclab.peer.transport.Endpoints.hostPort(server.clientEndpoint);
            for (Object[] objects : new Object[][] {{"short"}, {"long", 5L, new byte[3]},
                    {"long", "long"}}) {
                try (Socket socket = new Socket(at.host(), at.port())) {
                    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
                    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                        for (Object object : objects) {
                            out.writeObject(object);
                        }
                    }
                    socket.getOutputStream().write(bytes.toByteArray());
                    socket.shutdownOutput();
                    socket.getInputStream().readAllBytes();
                }
            }
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(0, new Client(drive(server, "long", 8), err.stream).run(), err.text());
            List<String> refusals = server.diagnostics.text().lines().toList();
            assertEquals(List.of(
                    "ipclab-peer: rejected object stream: expected a Long or the String \"long\", "
                            + "got java.lang.String",
                    "ipclab-peer: rejected object stream: expected a Long, got byte[3]",
                    "ipclab-peer: rejected object stream: expected a Long, got java.lang.String"),
                    refusals);
        }
    }

    /** A class other than Long and byte[] is refused by the filter; the server goes on. */
    @Test
    void anotherClassIsRefusedAndTheServerGoesOn() throws Throwable {
        try (ServerHarness server = ServerHarness.start(Mechanism.TCP, dir, false)) {
            var at = dev.ipclab.peer.transport.Endpoints.hostPort(server.clientEndpoint);
            try (Socket socket = new Socket(at.host(), at.port())) {
                // Serialized first, sent in one write: the server may close before a second one.
                java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
                try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                    out.writeObject(new java.util.ArrayList<>(List.of("not", "a", "Long")));
                }
                OutputStream raw = socket.getOutputStream();
                raw.write(bytes.toByteArray());
                assertEquals(-1, socket.getInputStream().read());
            }
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(0, new Client(drive(server, 40), err.stream).run(), err.text());
            assertTrue(server.diagnostics.text().startsWith("ipclab-peer: rejected object stream: "),
                    server.diagnostics.text());
        }
    }

    @Test
    void otherMechanismsAndPatternsAreUnsupported() throws Throwable {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        try (ServerHarness server = ServerHarness.start(Mechanism.UDS, dir, false)) {
            DriveOptions options = drive(server, 40);
            assertEquals(7, new Client(options, err.stream).run());
            assertEquals("unsupported", RoundTripTest.result(options).get("error_kind").asText());
        }
        try (ServerHarness server = ServerHarness.start(Mechanism.TCP, dir, false)) {
            assertEquals(7, new Client(drive(server, 40, "--pattern", "short"), err.stream).run());
        }
    }
}
