package dev.ipclab.peer.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.StreamAck;
import dev.ipclab.peer.frame.StreamChecksum;
import dev.ipclab.peer.frame.Vectors;
import java.nio.ByteBuffer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The server's tally of bare stream messages (section 11.1): sequence from the stamp, sums. */
class StreamTallyTest {
    private static final long SEED = 7;

    static Stream<Arguments> checksumVectors() {
        return Vectors.list("stream_checksums").stream().map(v -> Arguments.of(
                v.get("message_size").asInt() + " B from " + v.get("first_sequence").asLong(), v));
    }

    /** The server's running sum over the stamped messages gives the vector, as the client's does. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("checksumVectors")
    void runningSumAndExpectedSumGiveTheVector(String name, JsonNode vector) throws Exception {
        long seed = Vectors.u64(vector, "seed");
        int size = vector.get("message_size").asInt();
        long first = vector.get("first_sequence").asLong();
        long count = vector.get("messages").asLong();
        long checksum = Long.parseUnsignedLong(vector.get("checksum").asText().substring(2), 16);
        StreamTally tally = new StreamTally(seed, Fault.NONE);
        tally.mark(first - 1, size);
        long head = Payload.head(seed, Payload.REQUEST_STREAM);
        for (long s = first; s < first + count; s++) {
            ByteBuffer stamped = Payload.base(seed, Payload.REQUEST_STREAM, size);
            Payload.stamp(stamped, 0, size, head, s);
            tally.message(stamped, 0, size);
        }
        StreamAck ack = tally.end();
        assertEquals(count, ack.received());
        assertEquals(0, ack.gaps());
        assertEquals(checksum, ack.checksum());
        assertEquals(checksum, StreamChecksum.expected(seed, size, first, count));
    }

    /**
     * A message below 8 bytes carries its sequence modulo 2^(8S): a stream that runs past the
     * wrap has no gap, and a missing message is one gap whatever the size.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 7, 8, 100})
    void recoversTheSequenceFromTheStamp(int size) throws Exception {
        StreamTally tally = new StreamTally(SEED, Fault.NONE);
        tally.mark(250, size);
        for (long s = 251; s < 251 + 600; s++) {
            if (s != 400) {
                tally.message(stamped(size, s), 0, size);
            }
        }
        StreamAck ack = tally.end();
        assertEquals(599, ack.received());
        assertEquals(1, ack.gaps());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 9})
    void faultsStrikeTheSecondMessageAfterTheMark(int size) throws Exception {
        long clean = tallied(Fault.NONE, size).checksum();
        StreamAck dropped = tallied(Fault.DROP_STREAM_MESSAGE, size);
        assertEquals(4, dropped.received());
        assertEquals(clean - StreamChecksum.of(stamped(size, 12), 0, size), dropped.checksum());
        StreamAck flipped = tallied(Fault.FLIP_STREAM_BYTE, size);
        ByteBuffer second = stamped(size, 12);
        second.put(size - 1, (byte) (second.get(size - 1) ^ 1));
        assertEquals(clean - StreamChecksum.of(stamped(size, 12), 0, size)
                + StreamChecksum.of(second, 0, size), flipped.checksum());
    }

    /** A MARK sent twice with nothing between (udp resends) keeps the tally it started. */
    @Test
    void aRepeatedMarkChangesNothing() throws Exception {
        int size = 16;
        StreamTally tally = new StreamTally(SEED, Fault.NONE);
        tally.mark(3, size);
        tally.mark(3, size);
        tally.message(stamped(size, 4), 0, size);
        tally.mark(5, size);
        tally.message(stamped(size, 6), 0, size);
        tally.gap();
        StreamAck ack = tally.end();
        assertEquals(1, ack.received());
        assertEquals(1, ack.gaps());
    }

    /** Marked at sequence 10: messages 11 ... 15, the second of them where a fault strikes. */
    private static StreamAck tallied(Fault fault, int size) throws Exception {
        StreamTally tally = new StreamTally(SEED, fault);
        tally.mark(10, size);
        for (long s = 11; s <= 15; s++) {
            tally.message(stamped(size, s), 0, size);
        }
        return tally.end();
    }

    private static ByteBuffer stamped(int size, long sequence) {
        ByteBuffer buf = Payload.base(SEED, Payload.REQUEST_STREAM, size);
        Payload.stamp(buf, 0, size, Payload.head(SEED, Payload.REQUEST_STREAM), sequence);
        return buf;
    }
}
