package dev.ipclab.peer.objects;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.Payload;
import java.io.ObjectInputFilter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What both sides of {@code --payload object} (PROTOCOL.md 4.6) agree on: a round trip is a
 * {@code Long} and a {@code byte[]} each way, END is the {@code Long} -1, and the server tells
 * such a client from a frame client by its first bytes. {@code --payload long} (Wells' minimal
 * data) announces itself with the String {@value #LONG_MODE} as its first object; its round trip
 * is a {@code Long} alone each way.
 */
public final class ObjectWire {
    /** Java serialization's stream header: STREAM_MAGIC 0xACED, STREAM_VERSION 5. */
    static final int STREAM_HEADER = 0xACED0005;
    /** The END marker: a Long no clock reading of the client can be (nanoTime deltas are used). */
    static final long END = -1L;
    /** Buffer size of the streams under the object streams: one System V queue message. */
    static final int BUFFER = 8192;
    /** The first object of a --payload long client, before its round trips. */
    static final String LONG_MODE = "long";
    /** --payload long's request and response size: the Long's 8 bytes (section 1). */
    public static final int LONG_SIZE = Long.BYTES;

    private ObjectWire() {}

    /**
     * Whether the bytes at {@code at} (of which {@code available} have arrived) start a Java
     * serialization stream rather than a frame ("IPCL").
     */
    public static boolean startsObjects(ByteBuffer buf, int at, int available) {
        if (available < 4) {
            return false;
        }
        int first = 0;
        for (int i = 0; i < 4; i++) {  // byte by byte: the caller's buffer keeps its byte order
            first = first << 8 | Byte.toUnsignedInt(buf.get(at + i));
        }
        return first == STREAM_HEADER;
    }

    /**
     * Deserialisation accepts a Long and byte arrays of at most maxArray bytes, nothing else: a
     * hostile stream can neither name another class nor make the reader allocate more than the
     * contract's largest payload.
     */
    static ObjectInputFilter filter(int maxArray) {
        return info -> {
            Class<?> type = info.serialClass();
            // depth: a Long or an array at the top, nothing nested (references grow with every
            // round trip, resets or not, so they are not bounded here).
            if (info.depth() > 2 || info.arrayLength() > maxArray) {
                return ObjectInputFilter.Status.REJECTED;
            }
            if (type == null || type == Long.class || type == Number.class || type == byte[].class) {
                return ObjectInputFilter.Status.ALLOWED;
            }
            return ObjectInputFilter.Status.REJECTED;
        };
    }

    /** The largest array a server accepts: MAX_PAYLOAD, as for a frame's length. */
    static int maxPayload() {
        return Frame.MAX_PAYLOAD;
    }

    /** payload(seed, stream, sequence, n) in place: the base bytes with the sequence stamped. */
    static final class Stamped {
        private final byte[] bytes;
        private final ByteBuffer view;
        private final long head;

        Stamped(long seed, int stream, int length) {
            bytes = Payload.baseBytes(seed, stream, length);
            view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            head = Payload.head(seed, stream);
        }

        /** The array, stamped with the sequence. */
        byte[] at(long sequence) {
            Payload.stamp(view, 0, bytes.length, head, sequence);
            return bytes;
        }

        int length() {
            return bytes.length;
        }
    }
}
