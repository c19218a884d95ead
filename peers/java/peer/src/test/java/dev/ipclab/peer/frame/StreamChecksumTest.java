package dev.ipclab.peer.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The stream checksum of section 11.1: what the server adds up and what the client derives. */
class StreamChecksumTest {
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
        OutgoingFrame frame = new OutgoingFrame(Frame.REQUEST, 5, Payload.REQUEST_STREAM, size);
        long sum = 0;
        for (long s = 300; s < 600; s++) {
            sum += StreamChecksum.of(frame.prepare(s, 0), Frame.HEADER_SIZE, size);
        }
        assertEquals(sum, StreamChecksum.expected(5, size, 300, 300));
    }
}
