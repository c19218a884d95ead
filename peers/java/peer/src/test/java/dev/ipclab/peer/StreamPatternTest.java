package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.pattern.StreamShape;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.transport.ClientLink;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** The stream and short patterns of section 11, client against server in one JVM. */
class StreamPatternTest {
    private static final long SECONDS_30 = 30_000_000_000L;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(names = {"TCP", "UDS", "UDP", "UDS_DGRAM", "PIPE", "FIFO", "SYSV_MQ", "POSIX_MQ",
            "SYSV_SHM", "SHM", "SHM_FUTEX", "FILE", "FILE_POLL", "ZMQ_TCP", "ZMQ_IPC", "NNG_TCP",
            "NNG_IPC"})
    void streamsOneWayWithOneSamplePerWindowAndBothSidesCpu(Mechanism mechanism) throws Exception {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, Fault.NONE)) {
            long messages = mechanism == Mechanism.FILE_POLL || mechanism == Mechanism.FILE
                    ? 60 : 5003;
            DriveOptions options = stream(server, 1000, messages, 7, 20);
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(0, new Client(options, err.stream).run(), err.text());
            JsonNode result = RoundTripTest.result(options);
            assertEquals("stream", result.get("pattern").asText());
            assertEquals(7, result.get("samples").asInt());
            assertEquals(7, RoundTripTest.samples(options).length);
            assertEquals(messages, result.get("messages").asLong());
            assertEquals(1000, result.get("message_size").asInt());
            // udp may lose datagrams as fast as the client sends: counted, not an error.
            if (mechanism != Mechanism.UDP) {
                assertEquals(0, result.get("lost").asLong());
            }
            long windows = 0;
            for (long nanos : RoundTripTest.samples(options)) {
                assertTrue(nanos > 0);
                windows += nanos;
            }
            assertEquals(result.get("stream_ns").asLong(), windows);
            assertTrue(result.get("client_cpu").get("user_ns").asLong()
                    + result.get("client_cpu").get("sys_ns").asLong() > 0, result.toString());
            assertTrue(result.get("server_cpu").has("involuntary"), result.toString());
            assertEquals("", server.diagnostics.text());
        }
    }

    /**
     * A message of S bytes is S bytes (section 11.1): the sizes where a stamp is shorter than 8
     * bytes, where a message takes two channel messages or leaves the shm line, and the whole
     * datagram (-1: uds-dgram's D on this machine).
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"TCP,1", "PIPE,7", "FIFO,1", "UDS,100000", "SYSV_MQ,8193", "POSIX_MQ,1",
        "SYSV_SHM,9", "SHM,49", "SHM,48", "FILE,5", "UDS_DGRAM,1", "UDP,65507", "UDS_DGRAM,-1",
        "ZMQ_TCP,1", "ZMQ_IPC,1048576", "NNG_TCP,1048576", "NNG_IPC,1"})
    void streamsMessagesOfEverySizeUpToTheMechanismsLimit(Mechanism mechanism, int size)
            throws Exception {
        int bytes = size < 0 ? mechanism.maxMessage() : size;
        try (ServerHarness server = ServerHarness.start(mechanism, dir, Fault.NONE)) {
            DriveOptions options = stream(server, bytes, mechanism == Mechanism.FILE ? 20 : 300, 3, 2);
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(0, new Client(options, err.stream).run(), err.text());
            JsonNode result = RoundTripTest.result(options);
            assertEquals(bytes, result.get("message_size").asInt());
            assertEquals(3, RoundTripTest.samples(options).length);
            assertEquals("", server.diagnostics.text());
        }
    }

    /** Over the whole datagram is unsupported (exit 7), checked before connecting; 0 is usage. */
    @Test
    void aMessageOverTheDatagramIsUnsupportedAndNoneIsAUsageError() {
        String[] common = {"drive", "--pattern", "stream", "--messages", "5",
            "--samples-file", dir.resolve("s").toString(), "--result-file", dir.resolve("r").toString()};
        assertEquals(7, run(common, "--mechanism", "udp", "--endpoint", "127.0.0.1:1",
                "--message-size", "65508"));
        assertEquals(7, run(common, "--mechanism", "uds-dgram", "--endpoint",
                dir.resolve("nobody").toString(), "--message-size",
                Integer.toString(Mechanism.UDS_DGRAM.maxMessage() + 1)));
        assertEquals(2, run(common, "--mechanism", "tcp", "--endpoint", "127.0.0.1:1",
                "--message-size", "0"));
    }

    @ParameterizedTest
    @EnumSource(value = Fault.class, names = {"DROP_STREAM_MESSAGE", "FLIP_STREAM_BYTE"})
    void aServerThatDropsOrCorruptsAMessageFailsTheStream(Fault fault) throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.TCP, dir, fault)) {
            DriveOptions options = stream(server, 17, 100, 10, 3);
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(3, new Client(options, err.stream).run(), err.text());
            String expected = fault == Fault.DROP_STREAM_MESSAGE
                    ? "the server received 99 of 100 messages, 1 gap" : "stream checksum";
            assertTrue(err.text().contains(expected), err.text());
            assertEquals(0, RoundTripTest.samples(options).length);
            assertEquals("payload-mismatch", RoundTripTest.result(options).get("error_kind").asText());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"TCP", "UDS", "SYSV_MQ", "POSIX_MQ"})
    void shortOpensAConnectionPerRoundTrip(Mechanism mechanism) throws Exception {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, Fault.NONE)) {
            DriveOptions options = new DriveOptions(mechanism.label(), server.clientEndpoint,
                    "short", 1024, 1, 5, 600, dir.resolve("short.samples"), dir.resolve("short.json"),
                    1, SECONDS_30);
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(0, new Client(options, err.stream).run(), err.text());
            assertEquals(600, RoundTripTest.samples(options).length);
            assertEquals("", server.diagnostics.text());
        }
    }

    @Test
    void shortServerCountsCorruptedRequestsAcrossConnections() throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.TCP, dir, Fault.NONE)) {
            ClientLink link = Mechanism.TCP.connect(server.clientEndpoint, SECONDS_30);
            try (link) {
                OutgoingFrame bad = new OutgoingFrame(Frame.REQUEST, 99, Payload.REQUEST_STREAM, 16);
                link.send(bad.prepare(0, 1));
                link.receive(Frame.allocate(Frame.HEADER_SIZE + 1), Frame.HEADER_SIZE + 1);
            }
            DriveOptions options = new DriveOptions("tcp", server.clientEndpoint, "short", 16, 1, 0,
                    3, dir.resolve("s"), dir.resolve("r.json"), 1, SECONDS_30);
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(3, new Client(options, err.stream).run(), err.text());
            assertTrue(err.text().contains("server received 1 corrupted"), err.text());
        }
    }

    @Test
    void streamFlagsAreTheirOwn() {
        String[] common = {"drive", "--mechanism", "tcp", "--endpoint", "127.0.0.1:1",
            "--samples-file", "s", "--result-file", "r"};
        assertEquals(2, run(common, "--pattern", "stream", "--messages", "5"));
        assertEquals(2, run(common, "--pattern", "stream", "--message-size", "5", "--messages", "5",
                "--iterations", "5"));
        assertEquals(2, run(common, "--pattern", "stream", "--message-size", "5", "--messages", "5",
                "--windows", "6"));
        assertEquals(2, run(common, "--request-size", "1", "--response-size", "1",
                "--iterations", "1", "--messages", "5"));
        assertEquals(7, run(new String[] {"drive", "--mechanism", "pipe", "--endpoint", "fd:1,2",
            "--samples-file", dir.resolve("s").toString(), "--result-file",
            dir.resolve("r").toString()}, "--pattern", "short", "--request-size", "1",
                "--response-size", "1", "--iterations", "1"));
    }

    private static int run(String[] common, String... more) {
        String[] args = java.util.stream.Stream.concat(java.util.Arrays.stream(common),
                java.util.Arrays.stream(more)).toArray(String[]::new);
        return Main.run(args, new Loopback.Diagnostics().stream);
    }

    private DriveOptions stream(ServerHarness server, int size, long messages, long windows,
            long warmup) {
        return DriveOptions.streaming(server.mechanism.label(), server.clientEndpoint,
                new StreamShape(size, messages, windows), warmup,
                dir.resolve("stream.samples"), dir.resolve("stream.json"), 1, SECONDS_30);
    }
}
