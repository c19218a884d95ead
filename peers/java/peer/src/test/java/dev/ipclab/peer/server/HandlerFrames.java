package dev.ipclab.peer.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.frame.Vectors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The frames a client sends the connection handler in its tests (ConnectionHandlerTest,
 * ConnectionHandlerStreamTest), made with the payload generator of one seed, and the checks of
 * the replies it answers with.
 */
final class HandlerFrames {
    static final long SEED = 1;

    private HandlerFrames() {}

    /**
     * The handler's replies (little endian) to `sent`, written in one piece over a loopback
     * connection and followed by end of stream, once it served the connection to its end with no
     * frame rejected: the reader must split what arrives in one read.
     */
    static ByteBuffer repliesTo(ConnectionHandler handler, byte[] sent) throws IOException {
        try (Loopback loopback = Loopback.open()) {
            loopback.send(sent);
            loopback.client.shutdownOutput();
            assertNull(handler.serve(loopback.serverConnection()));
            loopback.server.close();
            return ByteBuffer.wrap(loopback.receiveAll()).order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    static byte[] payload(int stream, long sequence, int length) {
        OutgoingFrame frame = new OutgoingFrame(Frame.REQUEST, SEED, stream, length);
        return Vectors.bytes(frame.prepare(sequence, 0), Frame.HEADER_SIZE, length);
    }

    static byte[] request(long sequence, int length, int wanted, boolean corrupt) {
        OutgoingFrame frame = new OutgoingFrame(Frame.REQUEST, SEED, Payload.REQUEST_STREAM, length);
        ByteBuffer bytes = frame.prepare(sequence, wanted);
        if (corrupt) {
            frame.flipLastByte();
        }
        return Vectors.bytes(bytes, 0, Frame.HEADER_SIZE + length);
    }

    static byte[] end(long sequence) {
        ByteBuffer buf = Frame.allocate(Frame.HEADER_SIZE);
        Frame.writeHeader(buf, Frame.END, sequence, 0, 0);
        return Vectors.bytes(buf, 0, Frame.HEADER_SIZE);
    }

    static byte[] mark(long sequence, long size, long count) {
        ByteBuffer buf = Frame.allocate(Frame.HEADER_SIZE + Frame.MARK_PAYLOAD);
        Frame.writeMark(buf, sequence, size, count);
        return Vectors.bytes(buf, 0, Frame.HEADER_SIZE + Frame.MARK_PAYLOAD);
    }

    static void assertResponse(ByteBuffer replies, long sequence, int length, int echoed) {
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

    static void assertReply(ByteBuffer replies, byte kind, long sequence, int length) {
        ByteBuffer header = replies.slice(replies.position(), Frame.HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        try {
            Frame.checkReply(header, kind, sequence, length, 0);
        } catch (PeerException e) {
            throw new AssertionError(e.getMessage());
        }
        replies.position(replies.position() + Frame.HEADER_SIZE + length);
    }

    static long endAckCount(ByteBuffer replies, long sequence) {
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
}
