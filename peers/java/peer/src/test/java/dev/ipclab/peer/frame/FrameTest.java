package dev.ipclab.peer.frame;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

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

    private static void assertProtocolError(String message, org.junit.jupiter.api.function.Executable call) {
        PeerException e = assertThrows(PeerException.class, call);
        assertEquals(ErrorKind.PROTOCOL, e.kind());
        assertEquals(message, e.getMessage());
    }
}
