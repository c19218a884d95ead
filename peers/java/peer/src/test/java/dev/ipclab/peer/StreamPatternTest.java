package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The stream and short patterns of section 11, client against server in one JVM. */
class StreamPatternTest {
    private static final long SECONDS_30 = 30_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void checksumIsTheWordSumOfTheZeroPaddedPayload() {
        ByteBuffer buf = Frame.allocate(10);
        for (int i = 0; i < 10; i++) {
            buf.put(i, (byte) (i + 1));
        }
        // 0x0807060504030201 + 0x0a09 (the last word zero-padded)
        assertEquals(0x0807_0605_0403_0C0AL, StreamChecksum.of(buf, 0, 10));
        ByteBuffer wraps = Frame.allocate(16).putLong(0, -1L).putLong(8, 2L);
        assertEquals(1L, StreamChecksum.of(wraps, 0, 16));
        assertEquals(0L, StreamChecksum.of(buf, 3, 0));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 7, 8, 13, 1024})
    void expectedChecksumEqualsTheSumOfTheStampedPayloads(int size) {
        OutgoingFrame frame = new OutgoingFrame(Frame.DATA, 5, Payload.REQUEST_STREAM, size);
        long sum = 0;
        for (long s = 300; s < 600; s++) {
            sum += StreamChecksum.of(frame.prepare(s, 0), Frame.HEADER_SIZE, size);
        }
        assertEquals(sum, StreamChecksum.expected(5, size, 300, 300));
    }

    @ParameterizedTest
    @EnumSource(names = {"TCP", "UDS", "UDP", "UDS_DGRAM", "PIPE", "FIFO", "SYSV_MQ", "POSIX_MQ",
            "SYSV_SHM", "SHM", "FILE_POLL"})
    void streamsOneWayWithOneSamplePerWindowAndBothSidesCpu(Mechanism mechanism) throws Exception {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, Fault.NONE)) {
            long messages = mechanism == Mechanism.FILE_POLL ? 60 : 5003;
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

    /** Connection i comes from 127.1.b.c (section 11.2), so TIME_WAIT spreads over addresses. */
    @Test
    void shortTcpRotatesItsSourceAddress() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            InetSocketAddress bound = (InetSocketAddress) listener.getLocalAddress();
            try (Exchange.Dial dial = Tcp.dialer("127.0.0.1:" + bound.getPort())) {
                for (int i = 0; i < 3; i++) {
                    try (ClientLink link = dial.dial(); SocketChannel accepted = listener.accept()) {
                        InetSocketAddress from = (InetSocketAddress) accepted.getRemoteAddress();
                        assertEquals("127.1.0." + i, from.getAddress().getHostAddress());
                    }
                }
            }
        }
        assertEquals("127.1.0.254", Tcp.source(254).getAddress().getHostAddress());
        assertEquals("127.1.1.0", Tcp.source(255).getAddress().getHostAddress());
        assertEquals("127.1.255.254", Tcp.source(65279).getAddress().getHostAddress());
        assertEquals("127.1.0.0", Tcp.source(65280).getAddress().getHostAddress());
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
                new DriveOptions.StreamShape(size, messages, windows), warmup,
                dir.resolve("stream.samples"), dir.resolve("stream.json"), 1, SECONDS_30);
    }
}
