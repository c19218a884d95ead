package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.transport.Udp;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.FutureTask;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client against hand-made servers that break the contract in one way each. */
class MisbehavingServerTest {
    private static final int SIZE = 16;

    @TempDir
    Path dir;

    /** What the fake server does with each request frame it has read whole. */
    private interface Reply {
        /** @return false to close the connection */
        boolean answer(SocketChannel client, ByteBuffer request) throws IOException;
    }

    @Test
    void nonZeroEndAckCountIsAPayloadMismatch() throws Exception {
        Outcome outcome = runAgainst((client, request) -> {
            if (Frame.kind(request) == Frame.END) {
                ByteBuffer ack = Frame.allocate(32);
                Frame.writeHeader(ack, Frame.END_ACK, Frame.sequence(request), 8, 0);
                ack.putLong(24, 2);
                write(client, ack);
            } else {
                write(client, correctResponse(request));
            }
            return true;
        });
        assertEquals(3, outcome.code);
        assertEquals("ipclab-peer: payload-mismatch: payload mismatch: server received 2 corrupted"
                + " request payloads", outcome.stderr.strip());
    }

    @Test
    void wrongSequenceIsAProtocolError() throws Exception {
        Outcome outcome = runAgainst((client, request) -> {
            ByteBuffer response = correctResponse(request);
            response.putLong(Frame.OFF_SEQUENCE, Frame.sequence(request) + 1);
            write(client, response);
            return true;
        });
        assertEquals(4, outcome.code);
        assertEquals("ipclab-peer: protocol: response sequence: expected 0, received 1",
                outcome.stderr.strip());
    }

    @Test
    void closeInsideAResponseIsAnIoError() throws Exception {
        Outcome outcome = runAgainst((client, request) -> {
            write(client, correctResponse(request).limit(30));
            return false;
        });
        assertEquals(5, outcome.code);
        assertTrue(outcome.stderr.matches("ipclab-peer: io: exchange with 127\\.0\\.0\\.1:\\d+ failed: "
                + "EOFException: end of stream after 30 of 40 bytes of a frame\\s*"), outcome.stderr);
    }

    @Test
    void datagramOfTheWrongSizeIsAProtocolError() throws Exception {
        try (DatagramChannel server = DatagramChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            FutureTask<Void> fake = new FutureTask<>(() -> {
                ByteBuffer request = Frame.allocate(Udp.MAX_DATAGRAM + 1);
                var from = server.receive(request);
                server.send(correctResponse(request).limit(Frame.HEADER_SIZE + SIZE - 1), from);
                return null;
            });
            Thread.ofPlatform().daemon().start(fake);
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            Outcome outcome = drive("udp", "127.0.0.1:" + port);
            fake.get();
            assertEquals(4, outcome.code);
            assertEquals("ipclab-peer: protocol: response datagram size: expected 40, received 39",
                    outcome.stderr.strip());
        }
    }

    private record Outcome(int code, String stderr) {}

    private Outcome runAgainst(Reply reply) throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            FutureTask<Void> fake = new FutureTask<>(() -> {
                serveOne(listener, reply);
                return null;
            });
            Thread.ofPlatform().daemon().start(fake);
            int port = ((InetSocketAddress) listener.getLocalAddress()).getPort();
            Outcome outcome = drive("tcp", "127.0.0.1:" + port);
            fake.get();
            return outcome;
        }
    }

    private Outcome drive(String mechanism, String endpoint) {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        DriveOptions options = new DriveOptions(mechanism, endpoint, "rr", SIZE, SIZE, 0, 2,
                dir.resolve("samples"), dir.resolve("result.json"), 1, 5_000_000_000L);
        int code = new Client(options, err.stream).run();
        return new Outcome(code, err.text());
    }

    private static void serveOne(ServerSocketChannel listener, Reply reply) throws IOException {
        try (SocketChannel client = listener.accept()) {
            ByteBuffer request = Frame.allocate(Frame.HEADER_SIZE + SIZE);
            while (true) {
                request.clear().limit(Frame.HEADER_SIZE);
                if (!readFully(client, request)) {
                    return;
                }
                request.limit(Frame.HEADER_SIZE + (int) Frame.length(request));
                if (!readFully(client, request) || !reply.answer(client, request)) {
                    return;
                }
            }
        }
    }

    private static ByteBuffer correctResponse(ByteBuffer request) {
        OutgoingFrame response = new OutgoingFrame(Frame.RESPONSE, 1, Payload.RESPONSE_STREAM,
                (int) Frame.wanted(request));
        return response.prepare(Frame.sequence(request), (int) Frame.length(request));
    }

    private static boolean readFully(SocketChannel channel, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            if (channel.read(buf) < 0) {
                return false;
            }
        }
        return true;
    }

    private static void write(SocketChannel channel, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            channel.write(buf);
        }
    }
}
