package dev.ipclab.peer.frame;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class FrameTest {
    private static final Map<String, Byte> KINDS = Map.of("request", Frame.REQUEST,
            "response", Frame.RESPONSE, "end", Frame.END, "end_ack", Frame.END_ACK);

    static Stream<Arguments> frameVectors() {
        return Vectors.list("frames").stream().map(v -> Arguments.of(v.get("name").asText(), v));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("frameVectors")
    void encodesHeaderAsVector(String name, JsonNode vector) {
        ByteBuffer buf = Frame.allocate(Frame.HEADER_SIZE);
        Frame.writeHeader(buf, KINDS.get(vector.get("kind").asText()), Vectors.u64(vector, "sequence"),
                (int) vector.get("length").asLong(), (int) vector.get("wanted").asLong());
        assertArrayEquals(Vectors.hex(vector, "hex"), Vectors.bytes(buf, 0, Frame.HEADER_SIZE));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("frameVectors")
    void decodesVectorFields(String name, JsonNode vector) {
        ByteBuffer buf = Frame.allocate(Frame.HEADER_SIZE).put(Vectors.hex(vector, "hex"));
        assertEquals((byte) KINDS.get(vector.get("kind").asText()), Frame.kind(buf));
        assertEquals(Vectors.u64(vector, "sequence"), Frame.sequence(buf));
        assertEquals(vector.get("length").asLong(), Frame.length(buf));
        assertEquals(vector.get("wanted").asLong(), Frame.wanted(buf));
        boolean serverBound = vector.get("kind").asText().matches("request|end");
        assertEquals(serverBound ? null : "unexpected kind", Frame.requestProblem(buf));
    }

    static Stream<Arguments> markVectors() {
        return Vectors.list("stream_marks").stream().map(v -> Arguments.of(v.get("name").asText(), v));
    }

    /** Section 11.1's MARK: header and 16-byte payload as the vector, and a valid frame. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("markVectors")
    void encodesAndDecodesMarkAsVector(String name, JsonNode vector) {
        int size = Frame.HEADER_SIZE + Frame.MARK_PAYLOAD;
        ByteBuffer buf = Frame.allocate(size);
        Frame.writeMark(buf, Vectors.u64(vector, "sequence"), Vectors.u64(vector, "message_size"),
                Vectors.u64(vector, "count"));
        assertArrayEquals(Vectors.hex(vector, "hex"), Vectors.bytes(buf, 0, size));
        ByteBuffer received = Frame.allocate(size).put(Vectors.hex(vector, "hex"));
        assertNull(Frame.requestProblem(received));
        assertEquals(Vectors.u64(vector, "message_size"), Frame.markSize(received, 0));
        assertEquals(Vectors.u64(vector, "count"), Frame.markCount(received, 0));
        assertNull(Frame.markProblem(received, 0, Frame.MAX_PAYLOAD));
        assertTrue(Frame.isControl(received, size));
    }

    /** Step 10: a message size of 0 or above the server's limit; a MARK's length must be 16. */
    @Test
    void markChecksItsSizeAndItsLength() {
        ByteBuffer buf = Frame.allocate(Frame.HEADER_SIZE + Frame.MARK_PAYLOAD);
        Frame.writeMark(buf, 1, 0, 5);
        assertEquals("bad stream frame", Frame.markProblem(buf, 0, 65507));
        Frame.writeMark(buf, 1, 65508, 5);
        assertEquals("bad stream frame", Frame.markProblem(buf, 0, 65507));
        Frame.writeMark(buf, 1, -1L, 5);
        assertEquals("bad stream frame", Frame.markProblem(buf, 0, 65507));
        Frame.writeMark(buf, 1, 65507, 5);
        assertNull(Frame.markProblem(buf, 0, 65507));
        buf.putInt(Frame.OFF_LENGTH, 17);
        assertEquals("bad stream frame", Frame.requestProblem(buf));
        buf.putInt(Frame.OFF_LENGTH, 16);
        buf.putInt(Frame.OFF_WANTED, 1);
        assertEquals("bad stream frame", Frame.requestProblem(buf));
        buf.put(Frame.OFF_KIND, (byte) 5);
        buf.putInt(Frame.OFF_WANTED, 0);
        assertEquals("unexpected kind", Frame.requestProblem(buf), "DATA is gone since contract 4");
    }

    /** udp (11.1): only a well-formed MARK or END header of its own size is a control frame. */
    @Test
    void controlFramesAreMarkAndEndOfTheirOwnSize() {
        ByteBuffer buf = Frame.allocate(64);
        Frame.writeMark(buf, 1, 8, 5);
        assertTrue(Frame.isControl(buf, 40));
        assertFalse(Frame.isControl(buf, 41));
        assertFalse(Frame.isControl(buf, 23));
        Frame.writeHeader(buf, Frame.END, 9, 0, 0);
        assertTrue(Frame.isControl(buf, 24));
        Frame.writeHeader(buf, Frame.END, 9, 0, 3);
        assertFalse(Frame.isControl(buf, 24));
        Frame.writeHeader(buf, Frame.REQUEST, 9, 0, 0);
        assertFalse(Frame.isControl(buf, 24));
        Frame.writeHeader(buf, Frame.END, 9, 0, 0);
        buf.put(Frame.OFF_VERSION, (byte) 2);
        assertFalse(Frame.isControl(buf, 24));
    }

    @Test
    void headerSizeAndMaximumAgreeWithVectors() {
        assertEquals(Vectors.root().get("header_size").asInt(), Frame.HEADER_SIZE);
        assertEquals(Vectors.root().get("max_payload").asInt(), Frame.MAX_PAYLOAD);
    }

    @Test
    void replyCheckAcceptsTheExpectedResponse() throws PeerException {
        ByteBuffer buf = Frame.allocate(Frame.HEADER_SIZE);
        Frame.writeHeader(buf, Frame.RESPONSE, 7, 1024, 16);
        Frame.checkReply(buf, Frame.RESPONSE, 7, 1024, 16);
    }

    @Test
    void replyCheckNamesFieldExpectedAndReceived() {
        ByteBuffer buf = Frame.allocate(Frame.HEADER_SIZE);
        Frame.writeHeader(buf, Frame.RESPONSE, 7, 1024, 16);
        assertProtocolError("response sequence: expected 8, received 7",
                () -> Frame.checkReply(buf, Frame.RESPONSE, 8, 1024, 16));
        assertProtocolError("response length: expected 1000, received 1024",
                () -> Frame.checkReply(buf, Frame.RESPONSE, 7, 1000, 16));
        assertProtocolError("response wanted: expected 17, received 16",
                () -> Frame.checkReply(buf, Frame.RESPONSE, 7, 1024, 17));
        assertProtocolError("end_ack kind: expected 4, received 2",
                () -> Frame.checkReply(buf, Frame.END_ACK, 7, 8, 0));
        buf.put(Frame.OFF_FLAGS, (byte) 1);
        assertProtocolError("response flags: expected 0, received 1",
                () -> Frame.checkReply(buf, Frame.RESPONSE, 7, 1024, 16));
        buf.put(0, (byte) 'X');
        assertProtocolError("response magic: expected 4950434c, received 5850434c",
                () -> Frame.checkReply(buf, Frame.RESPONSE, 7, 1024, 16));
    }

    @Test
    void requestChecksComeInTheContractsOrder() {
        ByteBuffer buf = Frame.allocate(Frame.HEADER_SIZE);
        Frame.writeHeader(buf, Frame.END, 0, 5, -1);
        buf.put(Frame.OFF_FLAGS, (byte) 2); // 1 on END is a one-way short's NO_REPLY
        buf.put(Frame.OFF_VERSION, (byte) 9);
        assertEquals("bad version", Frame.requestProblem(buf));
        buf.put(Frame.OFF_VERSION, Frame.VERSION);
        assertEquals("bad flags", Frame.requestProblem(buf));
        buf.put(Frame.OFF_FLAGS, (byte) 0);
        assertEquals("length too large", Frame.requestProblem(buf));
        buf.putInt(Frame.OFF_WANTED, 0);
        assertEquals("bad end frame", Frame.requestProblem(buf));
        buf.putInt(Frame.OFF_LENGTH, 0);
        assertNull(Frame.requestProblem(buf));
    }

    /**
     * A reply address (0x8000 … 0x83FF) is a REQUEST's or END's flags in load over a message
     * queue only (11.5.5), where it is also the only flags a request may have.
     */
    @Test
    void replyAddressesAreFlagsOfQueueLoadOnly() {
        ByteBuffer buf = Frame.allocate(Frame.HEADER_SIZE + Frame.MARK_PAYLOAD);
        for (byte kind : new byte[] {Frame.REQUEST, Frame.END}) {
            Frame.writeHeader(buf, kind, 0, 0, 0);
            for (int flags : new int[] {0x8000, 0x83FF}) {
                Frame.setFlags(buf, (short) flags);
                assertNull(Frame.requestProblem(buf, 0, Frame.Accepts.QUEUE_LOAD));
                assertEquals("bad flags", Frame.requestProblem(buf, 0, Frame.Accepts.ALL));
                assertEquals("bad flags", Frame.requestProblem(buf, 0, Frame.Accepts.EXCHANGE));
            }
            for (int flags : new int[] {0, Frame.NO_REPLY, 0x7FFF, 0x8400, 0xFFFF}) {
                Frame.setFlags(buf, (short) flags);
                assertEquals("bad flags", Frame.requestProblem(buf, 0, Frame.Accepts.QUEUE_LOAD));
            }
        }
        Frame.writeMark(buf, 0, 16, 1);
        Frame.setFlags(buf, (short) 0x8000);
        assertEquals("unexpected kind", Frame.requestProblem(buf, 0, Frame.Accepts.QUEUE_LOAD));
    }

    private static void assertProtocolError(String message, org.junit.jupiter.api.function.Executable call) {
        PeerException e = assertThrows(PeerException.class, call);
        assertEquals(ErrorKind.PROTOCOL, e.kind());
        assertEquals(message, e.getMessage());
    }
}
