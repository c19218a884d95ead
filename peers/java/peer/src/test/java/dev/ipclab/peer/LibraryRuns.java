package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the message library tests share (SocketPairTest: ZeroMQ and NNG; RedisTest; NatsTest): a
 * client run in the test's JVM, a server process started as the orchestrator starts one, and the
 * checks every library server must pass the same way (round trips, streams past the window,
 * stream faults, rejected frames answered empty, a stream message of the wrong size).
 */
final class LibraryRuns {
    private static final long SECONDS_10 = 10_000_000_000L;

    private LibraryRuns() {}

    record Run(DriveOptions options, int exit, String err) {}

    /** A client in this JVM, with --samples-file and --result-file in dir. */
    static Run drive(Path dir, Mechanism mechanism, String endpoint, String... flags)
            throws Exception {
        List<String> args = new ArrayList<>(List.of("drive", "--mechanism", mechanism.label(),
                "--endpoint", endpoint, "--samples-file", dir.resolve("s").toString(),
                "--result-file", dir.resolve("r.json").toString()));
        args.addAll(List.of(flags));
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        int exit = Main.run(args.toArray(String[]::new), err.stream);
        DriveOptions options = exit == 2 ? null
                : (DriveOptions) Cli.parse(args.toArray(String[]::new));
        return new Run(options, exit, err.text());
    }

    /** A server process of this peer, registered with started; returns it once READY. */
    static ServerProcess serve(StartedProcesses started, String mechanism, String endpoint)
            throws Exception {
        Process server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin",
                "java").toString(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve",
                "--mechanism", mechanism, "--endpoint", endpoint).start();
        started.add(server);
        String line = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8)).readLine();
        assertTrue(line != null && line.startsWith("READY {"), "READY line: " + line);
        return new ServerProcess(server, new ObjectMapper().readTree(line.substring("READY ".length())));
    }

    /** A server process and its READY line's fields. */
    record ServerProcess(Process process, JsonNode ready) {
        /** Closes its stdin, as the orchestrator's end does: exit 0, nothing on stderr. */
        void assertEndsCleanlyAtTheEndOfItsInput() throws Exception {
            process.getOutputStream().close();
            assertTrue(process.waitFor(20, TimeUnit.SECONDS), "the server did not exit");
            assertEquals(0, process.exitValue());
            assertEquals("", new String(process.getErrorStream().readAllBytes(),
                    StandardCharsets.UTF_8));
        }
    }

    /** Round trips of these sizes against server: 20 (1 past 1 MiB), one sample each. */
    static void assertRoundTrips(Path dir, ServerHarness server, int requestSize,
            int responseSize) throws Exception {
        long iterations = Math.max(requestSize, responseSize) > (1 << 20) ? 1 : 20;
        Run run = drive(dir, server.mechanism, server.clientEndpoint, "--request-size",
                Integer.toString(requestSize), "--response-size", Integer.toString(responseSize),
                "--iterations", Long.toString(iterations), "--warmup", "1");
        assertEquals(0, run.exit, run.err);
        assertEquals(iterations, RoundTripTest.samples(run.options).length);
        assertEquals("", server.diagnostics.text());
    }

    /** A stream against server that succeeds: every message counted, a sample per window. */
    static void assertStreams(Path dir, ServerHarness server, int size, long messages,
            long warmup, int windows) throws Exception {
        Run run = drive(dir, server.mechanism, server.clientEndpoint, "--pattern", "stream",
                "--message-size", Integer.toString(size), "--messages", Long.toString(messages),
                "--windows", Integer.toString(windows), "--warmup", Long.toString(warmup));
        assertEquals(0, run.exit, run.err);
        JsonNode result = RoundTripTest.result(run.options);
        assertEquals(messages, result.get("messages").asLong());
        assertEquals(windows, RoundTripTest.samples(run.options).length);
        assertEquals("", server.diagnostics.text());
    }

    /**
     * A MARK of two 16-byte messages on link, then one of 15: the rest of the count is given
     * up, which END_ACK shows (no message received) and server rejects as a length mismatch.
     */
    static void assertWrongSizeGivesUpTheCount(ServerHarness server, ClientLink link)
            throws Exception {
        mark(link, 0, 16, 2);
        link.sendMessage(Frame.allocate(15)); // not 16: the rest of the count is given up
        assertEquals(0, end(link, 1).received());
        assertEquals(List.of("length mismatch"), rejections(server));
    }

    /**
     * A server process as the orchestrator runs it: READY with the endpoint it was given and a
     * {@code broker} that matches brokerPattern; a stream through it; the end of stdin ends it
     * with exit 0 and nothing on stderr.
     */
    static void assertServerProcessEndsCleanly(Path dir, StartedProcesses started,
            Mechanism mechanism, String endpoint, String brokerPattern) throws Exception {
        ServerProcess server = serve(started, mechanism.label(), endpoint);
        JsonNode ready = server.ready();
        assertEquals(endpoint, ready.get("endpoint").asText());
        assertTrue(ready.get("broker").asText().matches(brokerPattern), ready.toString());
        Run run = drive(dir, mechanism, endpoint, "--pattern", "stream", "--message-size",
                "1024", "--messages", "2000", "--warmup", "0");
        assertEquals(0, run.exit, run.err);
        server.assertEndsCleanlyAtTheEndOfItsInput();
    }

    /** A stream against a server with a stream fault: the client fails with payload-mismatch. */
    static void assertStreamFaultFails(Path dir, ServerHarness server, Fault fault)
            throws Exception {
        Run run = drive(dir, server.mechanism, server.clientEndpoint, "--pattern", "stream",
                "--message-size", "17", "--messages", "100", "--windows", "10", "--warmup", "3");
        assertEquals(3, run.exit, run.err);
        String expected = fault == Fault.DROP_STREAM_MESSAGE
                ? "the server received 99 of 100 messages, 1 gap" : "stream checksum";
        assertTrue(run.err.contains(expected), run.err);
    }

    /**
     * Three malformed frames on one link (bad magic, under 24 bytes, a REQUEST wanting more than
     * the limit), each answered with an empty message, as a library server that must answer
     * every request does (4.8-4.10); then a client's round trips succeed.
     */
    static void assertRejectedFramesAnsweredEmpty(Path dir, ServerHarness server)
            throws Exception {
        try (ClientLink bad = server.mechanism.connect(server.clientEndpoint, SECONDS_10)) {
            ByteBuffer answer = Frame.allocate(Frame.HEADER_SIZE + 64);
            byte[] malformed = Vectors.hex(Vectors.list("malformed").get(0), "hex");
            bad.send(Frame.allocate(malformed.length).put(malformed).clear());
            assertEquals(0, bad.receive(answer, Frame.HEADER_SIZE));
            bad.send(Frame.allocate(5));
            assertEquals(0, bad.receive(answer, Frame.HEADER_SIZE));
            bad.send(new OutgoingFrame(Frame.REQUEST, 1, Payload.REQUEST_STREAM, 16)
                    .prepare(0, Frame.MAX_PAYLOAD + 1));
            assertEquals(0, bad.receive(answer, Frame.HEADER_SIZE));
        }
        Run run = drive(dir, server.mechanism, server.clientEndpoint, "--request-size", "16",
                "--response-size", "16", "--iterations", "5");
        assertEquals(0, run.exit, run.err);
        assertEquals(List.of("bad magic", "truncated header", "length too large"),
                rejections(server));
    }

    /** Sends a MARK of count messages of size bytes on link and checks its MARK_ACK. */
    static void mark(ClientLink link, long sequence, int size, long count) throws Exception {
        ByteBuffer mark = Frame.allocate(Frame.HEADER_SIZE + Frame.MARK_PAYLOAD);
        Frame.writeMark(mark, sequence, size, count);
        link.send(mark.clear());
        ByteBuffer ack = Frame.allocate(Frame.HEADER_SIZE + Frame.STREAM_END_ACK_PAYLOAD);
        assertEquals(Frame.HEADER_SIZE, link.receive(ack, Frame.HEADER_SIZE));
        assertEquals(Frame.MARK_ACK, Frame.kind(ack));
    }

    /** Sends END on link; the stream's END_ACK. */
    static StreamAck end(ClientLink link, long sequence) throws Exception {
        link.send(new OutgoingFrame(Frame.END, 1, Payload.REQUEST_STREAM, 0).prepare(sequence, 0));
        ByteBuffer ack = Frame.allocate(Frame.HEADER_SIZE + Frame.STREAM_END_ACK_PAYLOAD);
        assertEquals(ack.capacity(), link.receive(ack, ack.capacity()));
        assertEquals(Frame.END_ACK, Frame.kind(ack));
        return StreamAck.read(ack, Frame.HEADER_SIZE);
    }

    /** The server's rejection lines, each its reason alone. */
    static List<String> rejections(ServerHarness server) {
        return server.diagnostics.text().lines()
                .map(line -> line.replace("ipclab-peer: rejected frame: ", "")).toList();
    }

    /** Waits (10 s at most) until the server has written line. */
    static void waitFor(ServerHarness server, String line) throws InterruptedException {
        long deadline = System.nanoTime() + SECONDS_10;
        while (!server.diagnostics.text().contains(line) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(server.diagnostics.text().contains(line), server.diagnostics.text());
    }
}
