package dev.ipclab.peer.objects;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ipclab.peer.transport.StreamConnection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The object server (PROTOCOL.md 4.6) on streams that are not what a client sends. */
class ObjectServerTest {
    /** Java serialization's TC_OBJECT and TC_ARRAY. */
    private static final byte TC_OBJECT = 0x73;
    private static final byte TC_ARRAY = 0x75;

    /**
     * A TC_ARRAY whose class descriptor is Long's: JDK 25's readObject throws
     * NullPointerException, which escaped the server and ended it (found by fuzzing). It is a
     * refused stream now, and the server serves on.
     */
    @Test
    void anArrayOfANonArrayClassIsARefusedStream() throws IOException {
        byte[] stream = serialized(0L);
        int at = 4;  // after the stream header
        assertTrue(stream[at] == TC_OBJECT);
        stream[at] = TC_ARRAY;
        String refusal = new ObjectServer(1, false).serve(ByteBuffer.wrap(stream), ENDED);
        assertTrue(refusal != null && refusal.startsWith("bad object stream: unreadable object"),
                refusal);
    }

    /** Primitive data where a Long belongs is a refused stream too, not an io failure. */
    @Test
    void primitiveDataForAnObjectIsARefusedStream() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeInt(7);
        }
        String refusal = new ObjectServer(1, false).serve(ByteBuffer.wrap(bytes.toByteArray()), ENDED);
        assertTrue(refusal != null && refusal.startsWith("bad object stream"), refusal);
    }

    private static byte[] serialized(Object value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }

    /** A connection with nothing more to read; what the server writes goes nowhere. */
    private static final StreamConnection ENDED = new StreamConnection() {
        @Override
        public int read(ByteBuffer dst) {
            return -1;
        }

        @Override
        public void write(ByteBuffer src) {
            src.position(src.limit());
        }

        @Override
        public void close() {}
    };
}
