package dev.ipclab.peer.server;

import static dev.ipclab.peer.server.HandlerFrames.SEED;
import static dev.ipclab.peer.server.HandlerFrames.assertResponse;
import static dev.ipclab.peer.server.HandlerFrames.end;
import static dev.ipclab.peer.server.HandlerFrames.endAckCount;
import static dev.ipclab.peer.server.HandlerFrames.mark;
import static dev.ipclab.peer.server.HandlerFrames.payload;
import static dev.ipclab.peer.server.HandlerFrames.repliesTo;
import static dev.ipclab.peer.server.HandlerFrames.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.Vectors;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The connection handler over request-response frames: the malformed vectors and bad stream
 * frames it rejects (allocating nothing for a claim), the requests it answers and the corrupted
 * ones it counts until END, the buffer it grows, the flip fault. Streams of bare messages are in
 * ConnectionHandlerStreamTest; the frames it is sent are HandlerFrames'.
 */
class ConnectionHandlerTest {
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
        ByteArrayOutputStream frames = new ByteArrayOutputStream();
        frames.write(request(0, 16, 24, false));
        frames.write(request(1, 16, 24, true));
        frames.write(request(2, 0, 0, false));
        frames.write(end(3));
        frames.write(request(4, 16, 24, true));
        frames.write(end(5));
        ByteBuffer replies = repliesTo(handler, frames.toByteArray());
        assertResponse(replies, 0, 24, 16);
        assertResponse(replies, 1, 24, 16);
        assertResponse(replies, 2, 0, 0);
        assertEquals(1, endAckCount(replies, 3), "one corrupted request before the first END");
        assertResponse(replies, 4, 24, 16);
        assertEquals(1, endAckCount(replies, 5), "the count restarts after END");
        assertEquals(0, replies.remaining());
        assertEquals("", diagnostics.text());
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
