package dev.ipclab.peer.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.frame.StreamAck;
import dev.ipclab.peer.frame.StreamChecksum;
import dev.ipclab.peer.frame.Vectors;
import dev.ipclab.peer.transport.StreamConnection;
import dev.ipclab.peer.transport.Udp;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ConnectionHandlerTest {
    private static final long SEED = 1;

    static Stream<Arguments> malformedVectors() {
        return Vectors.list("malformed").stream().map(v -> Arguments.of(v.get("name").asText(), v));
    }

    /**
     * Each malformed vector goes over a real loopback connection, followed by end of stream: the
     * handler must name the vector's reason, answer nothing, and allocate nothing for the claim.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedVectors")
    void rejectsMalformedFrameWithTheContractReason(String name, JsonNode vector) throws IOException {
        Loopback.Diagnostics diagnostics = new Loopback.Diagnostics();
        ConnectionHandler handler = new ConnectionHandler(new Responder(SEED, Fault.NONE), diagnostics.stream);
        long directBefore = directMemoryUsed();
        try (Loopback loopback = Loopback.open()) {
            loopback.send(Vectors.hex(vector, "hex"));
            loopback.client.shutdownOutput();

            String reason = handler.serve(loopback.serverConnection());
            loopback.server.close();

            assertEquals(vector.get("reason").asText(), reason);
            assertEquals("ipclab-peer: rejected frame: " + reason + System.lineSeparator(),
                    diagnostics.text());
            assertEquals(0, loopback.receiveAll().length, "a rejected frame gets no answer");
        }
        assertEquals(FrameReader.INITIAL_CAPACITY, handler.receiveCapacity());
        assertTrue(directMemoryUsed() - directBefore < 1 << 20, "direct memory grew");
    }

    @Test
    void answersRequestsAndCountsCorruptedPayloadsUntilEnd() throws IOException {
        Loopback.Diagnostics diagnostics = new Loopback.Diagnostics();
        ConnectionHandler handler = new ConnectionHandler(new Responder(SEED, Fault.NONE), diagnostics.stream);
        try (Loopback loopback = Loopback.open()) {
            ByteArrayOutputStream frames = new ByteArrayOutputStream();
            frames.write(request(0, 16, 24, false));
            frames.write(request(1, 16, 24, true));
            frames.write(request(2, 0, 0, false));
            frames.write(end(3));
            frames.write(request(4, 16, 24, true));
            frames.write(end(5));
            // All frames in one write: the reader must split what arrives in one read.
            loopback.send(frames.toByteArray());
            loopback.client.shutdownOutput();

            assertNull(handler.serve(loopback.serverConnection()));
            loopback.server.close();

            ByteBuffer replies = ByteBuffer.wrap(loopback.receiveAll()).order(ByteOrder.LITTLE_ENDIAN);
            assertResponse(replies, 0, 24, 16);
            assertResponse(replies, 1, 24, 16);
            assertResponse(replies, 2, 0, 0);
            assertEquals(1, endAckCount(replies, 3), "one corrupted request before the first END");
            assertResponse(replies, 4, 24, 16);
            assertEquals(1, endAckCount(replies, 5), "the count restarts after END");
            assertEquals(0, replies.remaining());
        }
        assertEquals("", diagnostics.text());
    }

    /**
     * Section 11.1: a MARK announces bare messages of its size, all in one write here so that
     * the reader splits messages and frames that arrive together; END_ACK sums the measured ones.
     */
    @Test
    void countsTheBareMessagesEachMarkAnnounces() throws IOException {
        Loopback.Diagnostics diagnostics = new Loopback.Diagnostics();
        ConnectionHandler handler = new ConnectionHandler(new Responder(SEED, Fault.NONE), diagnostics.stream);
        try (Loopback loopback = Loopback.open()) {
            ByteArrayOutputStream sent = new ByteArrayOutputStream();
            sent.write(mark(0, 7, 3));
            for (long s = 1; s <= 3; s++) {
                sent.write(payload(Payload.REQUEST_STREAM, s, 7));
            }
            sent.write(mark(4, 7, 5));
            for (long s = 5; s <= 9; s++) {
                sent.write(payload(Payload.REQUEST_STREAM, s, 7));
            }
            sent.write(end(10));
            loopback.send(sent.toByteArray());
            loopback.client.shutdownOutput();

            assertNull(handler.serve(loopback.serverConnection()));
            loopback.server.close();

            ByteBuffer replies = ByteBuffer.wrap(loopback.receiveAll()).order(ByteOrder.LITTLE_ENDIAN);
            assertReply(replies, Frame.MARK_ACK, 0, 0);
            assertReply(replies, Frame.MARK_ACK, 4, 0);
            int at = replies.position();
            assertReply(replies, Frame.END_ACK, 10, Frame.STREAM_END_ACK_PAYLOAD);
            assertEquals(0, replies.remaining());
            StreamAck ack = StreamAck.read(replies, at + Frame.HEADER_SIZE);
            assertEquals(5, ack.received());
            assertEquals(0, ack.gaps());
            assertEquals(StreamChecksum.expected(SEED, 7, 5, 5), ack.checksum());
        }
        assertEquals("", diagnostics.text());
    }

    /**
     * --read-size (11.1): each read of the stream's messages asks for at most min(N, the bytes
     * still due of what the MARK announced), never a byte of the control frame after them;
     * control frames are read greedily as before. The connection hands out what the client
     * wrote, one write at a time, as a socket with only those bytes arrived would.
     */
    @Test
    void readSizeBoundsEachReadOfMessagesToWhatIsDue() throws IOException {
        int size = 1000;
        int readSize = 300;
        List<byte[]> writes = new ArrayList<>();
        writes.add(mark(0, size, 0));
        writes.add(mark(1, size, 3));
        for (long s = 2; s <= 4; s++) {
            writes.add(payload(Payload.REQUEST_STREAM, s, size));
        }
        writes.add(end(5));
        Chunks connection = new Chunks(writes);
        ConnectionHandler handler = new ConnectionHandler(new Responder(SEED, Fault.NONE),
                new Loopback.Diagnostics().stream, readSize);
        assertNull(handler.serve(connection));
        long messagesStart = 2L * (Frame.HEADER_SIZE + Frame.MARK_PAYLOAD);
        long messagesEnd = messagesStart + 3L * size;
        int bounded = 0;
        for (long[] read : connection.reads) {
            long offset = read[0];
            long asked = read[1];
            if (offset >= messagesStart && offset < messagesEnd) {
                assertTrue(asked <= Math.min(readSize, messagesEnd - offset),
                        "a read at " + offset + " asked for " + asked);
                bounded++;
            } else {
                assertTrue(asked > readSize, "a control frame's read is greedy: " + asked);
            }
        }
        assertEquals(3 * ((size + readSize - 1) / readSize), bounded,
                "each 1000-byte message in reads of 300, 300, 300, 100");
        StreamAck ack = StreamAck.read(ByteBuffer.wrap(connection.written.toByteArray())
                .order(ByteOrder.LITTLE_ENDIAN), 2 * Frame.HEADER_SIZE + Frame.HEADER_SIZE);
        assertEquals(3, ack.received());
        assertEquals(StreamChecksum.expected(SEED, size, 2, 3), ack.checksum());
    }

    /** A read size of 0 (the default) reads greedily: a message of 1000 B in one read. */
    @Test
    void noReadSizeReadsGreedily() throws IOException {
        Chunks connection = new Chunks(List.of(mark(0, 1000, 1),
                payload(Payload.REQUEST_STREAM, 1, 1000), end(2)));
        assertNull(new ConnectionHandler(new Responder(SEED, Fault.NONE),
                new Loopback.Diagnostics().stream, 0).serve(connection));
        assertEquals(3, connection.reads.size() - 1, "MARK, message, END, then end of stream");
    }

    /** A stream connection handing out its writes' bytes one write at a time; records reads. */
    private static final class Chunks implements StreamConnection {
        final List<long[]> reads = new ArrayList<>();
        final ByteArrayOutputStream written = new ByteArrayOutputStream();
        private final List<byte[]> writes;
        private int next;
        private int within;
        private long offset;

        Chunks(List<byte[]> writes) {
            this.writes = writes;
        }

        @Override
        public int read(ByteBuffer dst) {
            reads.add(new long[] {offset, dst.remaining()});
            if (next == writes.size()) {
                return -1;
            }
            byte[] chunk = writes.get(next);
            int n = Math.min(dst.remaining(), chunk.length - within);
            dst.put(chunk, within, n);
            within += n;
            offset += n;
            if (within == chunk.length) {
                next++;
                within = 0;
            }
            return n;
        }

        @Override
        public void write(ByteBuffer src) {
            byte[] bytes = new byte[src.remaining()];
            src.get(bytes);
            written.writeBytes(bytes);
        }

        @Override
        public void close() {}
    }

    /** Step 10: a MARK of size 0 or over the limit, and a stream cut short by its end. */
    @Test
    void rejectsBadMarksAndAStreamCutShort() throws IOException {
        assertEquals("bad stream frame", serveOnly(mark(0, 0, 1)));
        assertEquals("bad stream frame", serveOnly(mark(0, Frame.MAX_PAYLOAD + 1L, 1)));
        ByteArrayOutputStream cut = new ByteArrayOutputStream();
        cut.write(mark(0, 100, 2));
        cut.write(payload(Payload.REQUEST_STREAM, 1, 100));
        cut.write(payload(Payload.REQUEST_STREAM, 2, 50));
        assertEquals("truncated payload", serveOnly(cut.toByteArray()));
    }

    /** A header claiming 128 MiB, then 1000 bytes: the buffer follows what arrived, not the claim. */
    @Test
    void aClaimOfTheLargestPayloadAllocatesNothingAheadOfItsBytes() throws IOException {
        byte[] claim = request(0, 1000, 8, false);
        ByteBuffer.wrap(claim).order(ByteOrder.LITTLE_ENDIAN).putInt(16, (int) Frame.MAX_PAYLOAD);
        assertEquals("truncated payload", serveOnly(claim));
    }

    /** Serves bytes followed by end of stream; returns the rejection, checks nothing grew. */
    private static String serveOnly(byte[] bytes) throws IOException {
        Loopback.Diagnostics diagnostics = new Loopback.Diagnostics();
        ConnectionHandler handler = new ConnectionHandler(new Responder(SEED, Fault.NONE), diagnostics.stream);
        try (Loopback loopback = Loopback.open()) {
            loopback.send(bytes);
            loopback.client.shutdownOutput();
            String reason = handler.serve(loopback.serverConnection());
            assertEquals("ipclab-peer: rejected frame: " + reason + System.lineSeparator(),
                    diagnostics.text());
            assertEquals(FrameReader.INITIAL_CAPACITY, handler.receiveCapacity());
            return reason;
        }
    }

    private static byte[] mark(long sequence, long size, long count) {
        ByteBuffer buf = Frame.allocate(Frame.HEADER_SIZE + Frame.MARK_PAYLOAD);
        Frame.writeMark(buf, sequence, size, count);
        return Vectors.bytes(buf, 0, Frame.HEADER_SIZE + Frame.MARK_PAYLOAD);
    }

    private static void assertReply(ByteBuffer replies, byte kind, long sequence, int length) {
        ByteBuffer header = replies.slice(replies.position(), Frame.HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        try {
            Frame.checkReply(header, kind, sequence, length, 0);
        } catch (PeerException e) {
            throw new AssertionError(e.getMessage());
        }
        replies.position(replies.position() + Frame.HEADER_SIZE + length);
    }

    @Test
    void growsOnlyForValidLargeRequests() throws IOException {
        ConnectionHandler handler = new ConnectionHandler(new Responder(SEED, Fault.NONE),
                new Loopback.Diagnostics().stream);
        int large = 1 << 20;
        try (Loopback loopback = Loopback.open()) {
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    loopback.send(request(0, large, 8, false));
                    loopback.send(end(1));
                    loopback.client.shutdownOutput();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertNull(handler.serve(loopback.serverConnection()));
            joinQuietly(writer);
            loopback.server.close();
            ByteBuffer replies = ByteBuffer.wrap(loopback.receiveAll()).order(ByteOrder.LITTLE_ENDIAN);
            assertResponse(replies, 0, 8, large);
            assertEquals(0, endAckCount(replies, 1));
        }
        assertEquals(Frame.HEADER_SIZE + large, handler.receiveCapacity());
    }

    @Test
    void flipFaultCorruptsTheLastResponseByteOfEveryResponse() throws IOException {
        ConnectionHandler handler = new ConnectionHandler(new Responder(SEED, Fault.FLIP_RESPONSE_BYTE),
                new Loopback.Diagnostics().stream);
        try (Loopback loopback = Loopback.open()) {
            loopback.send(request(0, 0, 20, false));
            loopback.send(request(1, 0, 20, false));
            loopback.client.shutdownOutput();
            assertNull(handler.serve(loopback.serverConnection()));
            loopback.server.close();
            ByteBuffer replies = ByteBuffer.wrap(loopback.receiveAll());
            for (long sequence = 0; sequence < 2; sequence++) {
                byte[] payload = new byte[20];
                replies.get(replies.position() + Frame.HEADER_SIZE, payload);
                replies.position(replies.position() + Frame.HEADER_SIZE + 20);
                byte[] expected = payload(Payload.RESPONSE_STREAM, sequence, 20);
                expected[19] ^= 0x01;
                assertArrayEquals(expected, payload);
            }
        }
    }

    static String udpReason(JsonNode vector) {
        String reason = vector.get("reason").asText();
        return reason.equals("truncated payload") ? "length mismatch" : reason;
    }

    /** The same vectors as datagrams; a payload shorter than its header says is a length mismatch. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedVectors")
    void datagramChecksGiveTheContractReason(String name, JsonNode vector) {
        byte[] bytes = Vectors.hex(vector, "hex");
        ByteBuffer datagram = Frame.allocate(Udp.MAX_DATAGRAM + 1).put(bytes);
        assertEquals(udpReason(vector), DatagramServer.problem(datagram, bytes.length, Udp.MAX_PAYLOAD));
    }

    @Test
    void datagramChecksRejectWhatUdpCannotCarry() {
        ByteBuffer datagram = Frame.allocate(Udp.MAX_DATAGRAM + 1);
        Frame.writeHeader(datagram, Frame.REQUEST, 0, 16, Udp.MAX_PAYLOAD + 1);
        assertEquals("length too large", DatagramServer.problem(datagram, 40, Udp.MAX_PAYLOAD));
        Frame.writeHeader(datagram, Frame.REQUEST, 0, 16, Udp.MAX_PAYLOAD);
        assertNull(DatagramServer.problem(datagram, 40, Udp.MAX_PAYLOAD));
        assertEquals("length mismatch", DatagramServer.problem(datagram, 41, Udp.MAX_PAYLOAD));
    }

    static byte[] payload(int stream, long sequence, int length) {
        OutgoingFrame frame = new OutgoingFrame(Frame.REQUEST, SEED, stream, length);
        return Vectors.bytes(frame.prepare(sequence, 0), Frame.HEADER_SIZE, length);
    }

    private static byte[] request(long sequence, int length, int wanted, boolean corrupt) {
        OutgoingFrame frame = new OutgoingFrame(Frame.REQUEST, SEED, Payload.REQUEST_STREAM, length);
        ByteBuffer bytes = frame.prepare(sequence, wanted);
        if (corrupt) {
            frame.flipLastByte();
        }
        return Vectors.bytes(bytes, 0, Frame.HEADER_SIZE + length);
    }

    private static byte[] end(long sequence) {
        ByteBuffer buf = Frame.allocate(Frame.HEADER_SIZE);
        Frame.writeHeader(buf, Frame.END, sequence, 0, 0);
        return Vectors.bytes(buf, 0, Frame.HEADER_SIZE);
    }

    private static void assertResponse(ByteBuffer replies, long sequence, int length, int echoed) {
        ByteBuffer header = replies.slice(replies.position(), Frame.HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        try {
            Frame.checkReply(header, Frame.RESPONSE, sequence, length, echoed);
        } catch (PeerException e) {
            throw new AssertionError(e.getMessage());
        }
        byte[] payload = new byte[length];
        replies.get(replies.position() + Frame.HEADER_SIZE, payload);
        assertArrayEquals(payload(Payload.RESPONSE_STREAM, sequence, length), payload);
        replies.position(replies.position() + Frame.HEADER_SIZE + length);
    }

    private static long endAckCount(ByteBuffer replies, long sequence) {
        ByteBuffer header = replies.slice(replies.position(), Frame.HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        try {
            Frame.checkReply(header, Frame.END_ACK, sequence, 8, 0);
        } catch (PeerException e) {
            throw new AssertionError(e.getMessage());
        }
        long count = replies.getLong(replies.position() + Frame.HEADER_SIZE);
        replies.position(replies.position() + Frame.HEADER_SIZE + 8);
        return count;
    }

    private static long directMemoryUsed() {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct"))
                .mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
    }

    private static void joinQuietly(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
