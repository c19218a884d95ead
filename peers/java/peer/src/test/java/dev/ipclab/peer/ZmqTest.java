package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.StreamAck;
import dev.ipclab.peer.frame.Vectors;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.transport.ClientLink;
import dev.ipclab.peer.transport.Zmq;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * zmq-tcp and zmq-ipc (PROTOCOL.md 4.8) over libzmq through FFM: what RoundTripTest and
 * StreamPatternTest do not cover for every mechanism: sizes up to the limit, stream faults, the
 * empty answer to a rejected request, stream messages out of place, the ipc files, timeouts, a
 * server process's end, capabilities' library.
 */
class ZmqTest {
    private static final long SECONDS_10 = 10_000_000_000L;

    @TempDir
    Path dir;

    @RegisterExtension
    final StartedProcesses started = new StartedProcesses();

    @Test
    void capabilitiesNameTheLibraryItRuns() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new Capabilities().print(new PrintStream(out, true, StandardCharsets.UTF_8));
        JsonNode mechanisms = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8))
                .get("mechanisms");
        assertTrue(Zmq.version().matches("libzmq [0-9]+\\.[0-9]+\\.[0-9]+"), Zmq.version());
        for (String name : List.of("zmq-tcp", "zmq-ipc")) {
            JsonNode entry = mechanisms.get(name);
            assertEquals(Zmq.version(), entry.get("library").asText());
            assertEquals("[\"serve\",\"drive\"]", entry.get("roles").toString());
            assertEquals("[\"rr\",\"stream\"]", entry.get("patterns").toString());
            assertEquals(Frame.MAX_PAYLOAD, entry.get("max_payload").asInt());
        }
        assertFalse(mechanisms.get("tcp").has("library"));
    }

    /** The largest payload each way (128 MiB), one round trip after one warm-up. */
    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({"ZMQ_TCP,134217728,16", "ZMQ_IPC,16,134217728"})
    void roundTripsUpToTheLimit(Mechanism mechanism, int requestSize, int responseSize)
            throws Exception {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, Fault.NONE)) {
            Run run = drive(server, "--request-size", Integer.toString(requestSize),
                    "--response-size", Integer.toString(responseSize), "--iterations", "1",
                    "--warmup", "1");
            assertEquals(0, run.exit, run.err);
            assertEquals(1, RoundTripTest.samples(run.options).length);
            assertEquals("", server.diagnostics.text());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Fault.class, names = {"DROP_STREAM_MESSAGE", "FLIP_STREAM_BYTE"})
    void aServerThatDropsOrCorruptsAMessageFailsTheStream(Fault fault) throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.ZMQ_IPC, dir, fault)) {
            Run run = drive(server, "--pattern", "stream", "--message-size", "17", "--messages",
                    "100", "--windows", "10", "--warmup", "3");
            assertEquals(3, run.exit, run.err);
            String expected = fault == Fault.DROP_STREAM_MESSAGE
                    ? "the server received 99 of 100 messages, 1 gap" : "stream checksum";
            assertTrue(run.err.contains(expected), run.err);
        }
    }

    /** REP must answer: a rejected frame gets an empty message, and the server goes on. */
    @ParameterizedTest
    @EnumSource(names = {"ZMQ_TCP", "ZMQ_IPC"})
    void aRejectedRequestIsAnsweredEmptyAndTheServerGoesOn(Mechanism mechanism) throws Exception {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, Fault.NONE)) {
            try (ClientLink bad = mechanism.connect(server.clientEndpoint, SECONDS_10)) {
                byte[] malformed = Vectors.hex(Vectors.list("malformed").get(0), "hex");
                ByteBuffer frame = Frame.allocate(malformed.length).put(malformed).clear();
                bad.send(frame);
                ByteBuffer answer = Frame.allocate(Frame.HEADER_SIZE + 64);
                assertEquals(0, bad.receive(answer, Frame.HEADER_SIZE));
                // A frame of fewer than 24 bytes, on the same REQ: answered empty too.
                bad.send(Frame.allocate(5));
                assertEquals(0, bad.receive(answer, Frame.HEADER_SIZE));
                // And a REQUEST wanting more than the limit.
                ByteBuffer request = new OutgoingFrame(Frame.REQUEST, 1, Payload.REQUEST_STREAM,
                        16).prepare(0, Frame.MAX_PAYLOAD + 1);
                bad.send(request);
                assertEquals(0, bad.receive(answer, Frame.HEADER_SIZE));
            }
            Run run = drive(server, "--request-size", "16", "--response-size", "16",
                    "--iterations", "5");
            assertEquals(0, run.exit, run.err);
            assertEquals("ipclab-peer: rejected frame: bad magic" + System.lineSeparator()
                    + "ipclab-peer: rejected frame: truncated header" + System.lineSeparator()
                    + "ipclab-peer: rejected frame: length too large" + System.lineSeparator(),
                    server.diagnostics.text());
        }
    }

    /**
     * A stream message when none is due is rejected (unexpected message); one of the wrong size
     * gives up the rest of its MARK's count (length mismatch), which END_ACK shows.
     */
    @Test
    void streamMessagesOutOfPlaceAreRejected() throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.ZMQ_TCP, dir, Fault.NONE)) {
            try (ClientLink link = Mechanism.ZMQ_TCP.connect(server.clientEndpoint, SECONDS_10)) {
                ByteBuffer mark = Frame.allocate(Frame.HEADER_SIZE + Frame.MARK_PAYLOAD);
                ByteBuffer ack = Frame.allocate(Frame.HEADER_SIZE + Frame.STREAM_END_ACK_PAYLOAD);
                Frame.writeMark(mark, 0, 16, 1);
                link.send(mark.clear());
                assertEquals(Frame.HEADER_SIZE, link.receive(ack, Frame.HEADER_SIZE));
                assertEquals(Frame.MARK_ACK, Frame.kind(ack));
                ByteBuffer message = Payload.base(1, Payload.REQUEST_STREAM, 16);
                Payload.stamp(message, 0, 16, Payload.head(1, Payload.REQUEST_STREAM), 0);
                link.sendMessage(message.clear());
                link.sendMessage(message.clear()); // the MARK announced one
                waitFor(server, "ipclab-peer: rejected frame: unexpected message");

                Frame.writeMark(mark, 1, 16, 2);
                link.send(mark.clear());
                assertEquals(Frame.HEADER_SIZE, link.receive(ack, Frame.HEADER_SIZE));
                link.sendMessage(Frame.allocate(15)); // not 16: the rest of the count is given up
                waitFor(server, "ipclab-peer: rejected frame: length mismatch");
                OutgoingFrame end = new OutgoingFrame(Frame.END, 1, Payload.REQUEST_STREAM, 0);
                link.send(end.prepare(2, 0));
                assertEquals(ack.capacity(), link.receive(ack, ack.capacity()));
                assertEquals(Frame.END_ACK, Frame.kind(ack));
                // The shortfall: none of the second MARK's two (the MARK reset the count).
                assertEquals(0, StreamAck.read(ack, Frame.HEADER_SIZE).received());
            }
        }
    }

    /** zmq-ipc: both socket files 0600 while serving, an existing one refused, both removed. */
    @Test
    void ipcSocketFilesAreOwnerOnlyRefusedIfPresentAndRemoved() throws Exception {
        Path socket;
        try (ServerHarness server = ServerHarness.start(Mechanism.ZMQ_IPC, dir, Fault.NONE)) {
            socket = Path.of(server.clientEndpoint);
            for (Path file : List.of(socket, Path.of(socket + ".stream"))) {
                assertEquals("rw-------", PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(file)));
            }
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(5, Main.run(new String[] {"serve", "--mechanism", "zmq-ipc",
                "--endpoint", socket.toString()}, err.stream));
            assertTrue(err.text().contains("path exists"), err.text());
        }
        assertFalse(Files.exists(socket));
        assertFalse(Files.exists(Path.of(socket + ".stream")));
        Path taken = Files.createFile(dir.resolve("taken.sock.stream"));
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(5, Main.run(new String[] {"serve", "--mechanism", "zmq-ipc", "--endpoint",
            dir.resolve("taken.sock").toString()}, err.stream));
        assertFalse(Files.exists(dir.resolve("taken.sock")), "the request socket was left");
        assertTrue(Files.exists(taken), "someone else's file was removed");
    }

    /** Nobody at the endpoint: ZeroMQ connects in the background, so the answer times out. */
    @Test
    void nobodyAtTheEndpointIsATimeout() throws Exception {
        Run run = drive(Mechanism.ZMQ_IPC, dir.resolve("nobody.sock").toString(),
                "--request-size", "16", "--response-size", "16", "--iterations", "1",
                "--io-timeout", "0.3");
        assertEquals(6, run.exit, run.err);
        assertEquals("timeout", RoundTripTest.result(run.options).get("error_kind").asText());
        Run bad = drive(Mechanism.ZMQ_TCP, "127.0.0.1:5555", "--request-size", "16",
                "--response-size", "16", "--iterations", "1");
        assertEquals(2, bad.exit, bad.err);
        assertTrue(bad.err.contains("tcp://HOST:PORT,tcp://HOST:PORT"), bad.err);
    }

    /**
     * As the orchestrator runs it, in a process of its own: READY with its two addresses; the end
     * of stdin ends it with exit 0, nothing on stderr, the ipc files removed.
     */
    @ParameterizedTest
    @CsvSource({"zmq-tcp", "zmq-ipc"})
    void aServerProcessEndsCleanlyAtTheEndOfItsInput(String mechanism) throws Exception {
        boolean ipc = mechanism.equals("zmq-ipc");
        String endpoint = ipc ? dir.resolve("p.sock").toString() : "127.0.0.1:0";
        Process server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin",
                "java").toString(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve",
                "--mechanism", mechanism, "--endpoint", endpoint).start();
        started.add(server);
        String line = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8)).readLine();
        assertTrue(line != null && line.startsWith("READY {"), "READY line: " + line);
        String ready = new ObjectMapper().readTree(line.substring("READY ".length()))
                .get("endpoint").asText();
        if (ipc) {
            assertEquals(endpoint, ready);
        } else {
            assertTrue(ready.matches("tcp://127\\.0\\.0\\.1:[0-9]+,tcp://127\\.0\\.0\\.1:[0-9]+"),
                    ready);
        }
        Run run = drive(Mechanism.byName(mechanism).orElseThrow(), ready, "--pattern", "stream",
                "--message-size", "1024", "--messages", "2000", "--warmup", "0");
        assertEquals(0, run.exit, run.err);
        server.getOutputStream().close();
        assertTrue(server.waitFor(20, TimeUnit.SECONDS), "the server did not exit");
        assertEquals(0, server.exitValue());
        assertEquals("", new String(server.getErrorStream().readAllBytes(),
                StandardCharsets.UTF_8));
        if (ipc) {
            assertFalse(Files.exists(Path.of(endpoint)));
            assertFalse(Files.exists(Path.of(endpoint + ".stream")));
        }
    }

    private static void waitFor(ServerHarness server, String line) throws InterruptedException {
        long deadline = System.nanoTime() + SECONDS_10;
        while (!server.diagnostics.text().contains(line) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(server.diagnostics.text().contains(line), server.diagnostics.text());
    }

    private record Run(DriveOptions options, int exit, String err) {}

    private Run drive(ServerHarness server, String... flags) throws Exception {
        return drive(server.mechanism, server.clientEndpoint, flags);
    }

    /** A client in this JVM, with --samples-file and --result-file in the test's directory. */
    private Run drive(Mechanism mechanism, String endpoint, String... flags) throws Exception {
        List<String> args = new ArrayList<>(List.of("drive", "--mechanism", mechanism.label(),
                "--endpoint", endpoint, "--samples-file", dir.resolve("s").toString(),
                "--result-file", dir.resolve("r.json").toString()));
        args.addAll(List.of(flags));
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        int exit = Main.run(args.toArray(String[]::new), err.stream);
        DriveOptions options = exit == 2 ? null : (DriveOptions) Cli.parse(args.toArray(String[]::new));
        return new Run(options, exit, err.text());
    }
}
