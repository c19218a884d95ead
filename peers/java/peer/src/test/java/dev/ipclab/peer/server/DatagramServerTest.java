package dev.ipclab.peer.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.StreamAck;
import dev.ipclab.peer.frame.Vectors;
import dev.ipclab.peer.transport.Udp;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The datagram server's stream (section 11.1): udp tells frames by their header, uds-dgram
 * counts; and its checks of one datagram, the malformed vectors among them.
 */
class DatagramServerTest {
    private static final long SEED = 3;
    private static final int LIMIT = 100;

    /** uds-dgram: a datagram of another size breaks the stream; a MARK over D is refused. */
    @Test
    void udsDgramCountsTheMarksMessagesAndDropsABrokenStream() throws Exception {
        FakePort port = new FakePort(false);
        port.queue(mark(0, 8, 2), message(8, 1), message(8, 2), mark(3, 8, 3), message(8, 4),
                message(9, 5), end(6), mark(7, LIMIT + 1, 1), mark(8, LIMIT, 0));
        Loopback.Diagnostics diagnostics = port.serve();
        assertEquals("ipclab-peer: rejected frame: length mismatch" + System.lineSeparator()
                + "ipclab-peer: rejected frame: bad stream frame" + System.lineSeparator(),
                diagnostics.text());
        assertEquals(4, port.replies.size());
        assertEquals(Frame.MARK_ACK, Frame.kind(port.replies.get(0)));
        StreamAck ack = StreamAck.read(port.replies.get(2), Frame.HEADER_SIZE);
        assertEquals(1, ack.received(), "message 5 broke the stream, END was read as a frame");
        assertEquals(0, ack.gaps());
        assertEquals(8, Frame.sequence(port.replies.get(3)));
    }

    /** udp: every datagram but a MARK or END header is a message; another size is a gap. */
    @Test
    void udpTakesEveryOtherDatagramAsAMessage() throws Exception {
        FakePort port = new FakePort(true);
        port.queue(mark(0, 8, 0), mark(1, 8, 3), message(8, 2), message(7, 3), message(8, 4),
                end(5), end(5));
        Loopback.Diagnostics diagnostics = port.serve();
        assertEquals("", diagnostics.text());
        assertEquals(4, port.replies.size());
        StreamAck ack = StreamAck.read(port.replies.get(2), Frame.HEADER_SIZE);
        assertEquals(2, ack.received());
        assertEquals(2, ack.gaps(), "the 7-byte datagram, and 4 after 2");
        assertEquals(Frame.HEADER_SIZE + Frame.END_ACK_PAYLOAD, port.replies.get(3).limit(),
                "a repeated END after the stream gets a plain END_ACK");
    }

    static String udpReason(JsonNode vector) {
        String reason = vector.get("reason").asText();
        return reason.equals("truncated payload") ? "length mismatch" : reason;
    }

    /** The same vectors as datagrams; a payload shorter than its header says is a length mismatch. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ipclab.peer.server.ConnectionHandlerTest#malformedVectors")
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

    private static ByteBuffer mark(long sequence, long size, long count) {
        ByteBuffer buf = Frame.allocate(Frame.HEADER_SIZE + Frame.MARK_PAYLOAD);
        Frame.writeMark(buf, sequence, size, count);
        return buf;
    }

    private static ByteBuffer message(int size, long sequence) {
        ByteBuffer buf = Payload.base(SEED, Payload.REQUEST_STREAM, size);
        Payload.stamp(buf, 0, size, Payload.head(SEED, Payload.REQUEST_STREAM), sequence);
        return buf;
    }

    private static ByteBuffer end(long sequence) {
        ByteBuffer buf = Frame.allocate(Frame.HEADER_SIZE);
        Frame.writeHeader(buf, Frame.END, sequence, 0, 0);
        return buf;
    }

    /** Hands the queued datagrams to the server, records its replies, stops it when empty. */
    private static final class FakePort extends MemoryPort {
        private final ArrayDeque<ByteBuffer> datagrams = new ArrayDeque<>();
        final List<ByteBuffer> replies = new ArrayList<>();

        /** A receive buffer one byte over the largest datagram for both, as udp's. */
        FakePort(boolean lossy) {
            super(LIMIT - Frame.HEADER_SIZE, lossy, LIMIT + 1);
        }

        void queue(ByteBuffer... sent) {
            datagrams.addAll(List.of(sent));
        }

        Loopback.Diagnostics serve() {
            Loopback.Diagnostics diagnostics = new Loopback.Diagnostics();
            DatagramServer server = new DatagramServer(this, new Responder(SEED, Fault.NONE),
                    diagnostics.stream);
            serving(server);
            assertEquals(0, server.serve());
            return diagnostics;
        }

        @Override
        int next(ByteBuffer dst) {
            ByteBuffer next = datagrams.poll();
            if (next == null) {
                return -1;
            }
            dst.put(next.clear());
            return next.limit();
        }

        @Override
        public void reply(ByteBuffer frame) {
            ByteBuffer copy = Frame.allocate(frame.remaining());
            copy.put(frame.duplicate()).clear();
            replies.add(copy);
        }
    }
}
