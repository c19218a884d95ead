package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.transport.ClientLink;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** --one-way short (section 11.2): REQUEST and END flagged NO_REPLY, END_ACK with the count. */
class OneWayTest {
    private static final long SECONDS_30 = 30_000_000_000L;

    @TempDir
    Path dir;

    private final Loopback.Diagnostics err = new Loopback.Diagnostics();

    @ParameterizedTest
    @EnumSource(names = {"TCP", "UDS", "SYSV_MQ", "POSIX_MQ"})
    void oneWayShortSendsAndTheServerCountsEveryRequest(Mechanism mechanism) throws Exception {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, Fault.NONE)) {
            assertEquals(0, drive(mechanism.label(), server.clientEndpoint, "--request-size", "1000",
                    "--warmup", "7", "--iterations", "300"), err.text());
            assertEquals(300, RoundTripTest.samples(options()).length);
            assertEquals("", server.diagnostics.text());
        }
    }

    /** The server's side on the wire: no RESPONSE, then a 16-byte END_ACK (corrupted, received). */
    @Test
    void theServerAnswersOnlyEndWithCorruptedAndReceived() throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.TCP, dir, Fault.NONE)) {
            OutgoingFrame good = new OutgoingFrame(Frame.REQUEST, 1, Payload.REQUEST_STREAM, 64)
                    .noReply();
            OutgoingFrame bad = new OutgoingFrame(Frame.REQUEST, 99, Payload.REQUEST_STREAM, 64)
                    .noReply();
            for (int i = 0; i < 3; i++) {
                try (ClientLink link = Mechanism.TCP.connect(server.clientEndpoint, SECONDS_30)) {
                    link.send((i == 1 ? bad : good).prepare(i, 0));
                }
            }
            ByteBuffer ack = Frame.allocate(Frame.HEADER_SIZE + Frame.ONE_WAY_END_ACK_PAYLOAD);
            try (ClientLink link = Mechanism.TCP.connect(server.clientEndpoint, SECONDS_30)) {
                link.send(new OutgoingFrame(Frame.END, 1, Payload.REQUEST_STREAM, 0).noReply()
                        .prepare(3, 0));
                assertEquals(ack.capacity(), link.receive(ack, ack.capacity()));
            }
            Frame.checkReply(ack, Frame.END_ACK, 3, Frame.ONE_WAY_END_ACK_PAYLOAD, 0);
            assertEquals(1, ack.getLong(Frame.HEADER_SIZE));
            assertEquals(3, ack.getLong(Frame.HEADER_SIZE + 8));
            assertEquals("", server.diagnostics.text());
        }
    }

    /** A server that received fewer requests than were sent: a protocol error naming both. */
    @Test
    void fewerReceivedThanSentIsAProtocolError() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            Thread fake = Thread.ofPlatform().daemon().start(() -> answerEndWithOne(listener));
            int port = ((InetSocketAddress) listener.getLocalAddress()).getPort();
            assertEquals(4, drive("tcp", "127.0.0.1:" + port, "--request-size", "8",
                    "--iterations", "5"));
            assertTrue(err.text().contains("received 1 requests, the client sent 5"), err.text());
            fake.join(5000);
        }
    }

    /** Reads each connection's frame; answers END with a one-way END_ACK saying 1 received. */
    private static void answerEndWithOne(ServerSocketChannel listener) {
        try {
            while (true) {
                try (SocketChannel connection = listener.accept()) {
                    ByteBuffer frame = Frame.allocate(Frame.HEADER_SIZE + 8);
                    while (frame.position() < Frame.HEADER_SIZE && connection.read(frame) >= 0) {
                        continue;
                    }
                    if (Frame.kind(frame) == Frame.END) {
                        ByteBuffer ack = Frame.allocate(Frame.HEADER_SIZE + 16);
                        Frame.writeHeader(ack, Frame.END_ACK, Frame.sequence(frame), 16, 0);
                        ack.putLong(Frame.HEADER_SIZE + 8, 1);
                        connection.write(ack.clear());
                        return;
                    }
                }
            }
        } catch (java.io.IOException e) {
            // The test has ended.
        }
    }

    @Test
    void flagsNoReplyOnlyOnRequestAndEnd() {
        ByteBuffer header = Frame.allocate(Frame.HEADER_SIZE);
        for (byte kind : new byte[] {Frame.REQUEST, Frame.END}) {
            Frame.writeHeader(header, kind, 0, 0, 0);
            Frame.setFlags(header, Frame.NO_REPLY);
            assertNull(Frame.requestProblem(header));
            Frame.setFlags(header, (short) 2);
            assertEquals("bad flags", Frame.requestProblem(header));
        }
        Frame.writeHeader(header, Frame.MARK, 0, 0, 0);
        Frame.setFlags(header, Frame.NO_REPLY);
        assertEquals("bad flags", Frame.requestProblem(header));
    }

    @Test
    void oneWayIsShortOverFramesWithoutAResponse() {
        assertEquals(2, Main.run(args("tcp", "127.0.0.1:1", "--pattern", "rr", "--one-way",
                "--request-size", "1", "--response-size", "0", "--iterations", "1"), err.stream));
        assertEquals(2, drive("tcp", "127.0.0.1:1", "--request-size", "1", "--response-size", "4",
                "--iterations", "1"));
        assertEquals(7, drive("rest", "127.0.0.1:1", "--request-size", "1", "--iterations", "1"));
    }

    /** drive --pattern short --one-way with the given flags. */
    private int drive(String mechanism, String endpoint, String... more) {
        List<String> all = new ArrayList<>(List.of("--pattern", "short", "--one-way"));
        all.addAll(List.of(more));
        return Main.run(args(mechanism, endpoint, all.toArray(String[]::new)), err.stream);
    }

    private String[] args(String mechanism, String endpoint, String... more) {
        List<String> all = new ArrayList<>(List.of("drive", "--mechanism", mechanism, "--endpoint",
                endpoint, "--samples-file", dir.resolve("s").toString(), "--result-file",
                dir.resolve("r.json").toString()));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private DriveOptions options() {
        return new DriveOptions("tcp", "x", "short", 0, 0, 0, 1, dir.resolve("s"),
                dir.resolve("r.json"), 1, SECONDS_30);
    }
}
