package dev.ipclab.peer.server;

import static dev.ipclab.peer.server.HandlerFrames.SEED;
import static dev.ipclab.peer.server.HandlerFrames.assertReply;
import static dev.ipclab.peer.server.HandlerFrames.end;
import static dev.ipclab.peer.server.HandlerFrames.mark;
import static dev.ipclab.peer.server.HandlerFrames.payload;
import static dev.ipclab.peer.server.HandlerFrames.repliesTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.StreamAck;
import dev.ipclab.peer.frame.StreamChecksum;
import dev.ipclab.peer.transport.StreamConnection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The connection handler over a stream (section 11.1): the bare messages each MARK announces,
 * counted and summed into END_ACK, and --read-size's bound on each read of them. The frames it
 * is sent are HandlerFrames'.
 */
class ConnectionHandlerStreamTest {
    /**
     * Section 11.1: a MARK announces bare messages of its size, all in one write here so that
     * the reader splits messages and frames that arrive together; END_ACK sums the measured ones.
     */
    @Test
    void countsTheBareMessagesEachMarkAnnounces() throws IOException {
        Loopback.Diagnostics diagnostics = new Loopback.Diagnostics();
        ConnectionHandler handler = new ConnectionHandler(new Responder(SEED, Fault.NONE), diagnostics.stream);
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
        ByteBuffer replies = repliesTo(handler, sent.toByteArray());
        assertReply(replies, Frame.MARK_ACK, 0, 0);
        assertReply(replies, Frame.MARK_ACK, 4, 0);
        int at = replies.position();
        assertReply(replies, Frame.END_ACK, 10, Frame.STREAM_END_ACK_PAYLOAD);
        assertEquals(0, replies.remaining());
        StreamAck ack = StreamAck.read(replies, at + Frame.HEADER_SIZE);
        assertEquals(5, ack.received());
        assertEquals(0, ack.gaps());
        assertEquals(StreamChecksum.expected(SEED, 7, 5, 5), ack.checksum());
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
}
