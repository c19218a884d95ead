package dev.ipclab.peer.frame;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The payload generator of PROTOCOL.md section 3: a splitmix64 base per (seed, stream, length),
 * stamped per frame by XOR-ing its first eight bytes with the sequence number. Every side that
 * makes or checks payloads uses it, the RPC mechanisms ({@code dev.ipclab.peer.rpc}) too, which
 * carry the same payloads without frames.
 */
public final class Payload {
    public static final int REQUEST_STREAM = 1;
    public static final int RESPONSE_STREAM = 2;
    /** The stream of the structured records of section 10.2. */
    public static final int STRUCT_STREAM = 3;

    private static final long GOLDEN = 0x9E37_79B9_7F4A_7C15L;

    private Payload() {}

    /** Writes the base payload of {@code length} bytes into a little-endian buffer at offset. */
    public static void fillBase(ByteBuffer dst, int offset, long seed, int stream, int length) {
        if (dst.order() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalArgumentException("payload buffers must be little-endian");
        }
        long state = initialState(seed, stream);
        int whole = length & ~7;
        int i = 0;
        // Whole 8-byte words: one long store each keeps 128 MiB to a few tens of milliseconds.
        for (; i < whole; i += 8) {
            state += GOLDEN;
            dst.putLong(offset + i, mix(state));
        }
        if (i < length) {
            long last = mix(state + GOLDEN);
            for (; i < length; i++, last >>>= 8) {
                dst.put(offset + i, (byte) last);
            }
        }
    }

    /** A fresh direct buffer holding the base payload. */
    public static ByteBuffer base(long seed, int stream, int length) {
        ByteBuffer buf = Frame.allocate(length);
        fillBase(buf, 0, seed, stream, length);
        return buf;
    }

    /** The first eight base bytes as a little-endian long: what the stamp is XOR-ed onto. */
    public static long head(long seed, int stream) {
        return mix(initialState(seed, stream) + GOLDEN);
    }

    /** Overwrites the first min(8, length) bytes at offset with the base head XOR the sequence. */
    public static void stamp(ByteBuffer buf, int offset, int length, long head, long sequence) {
        long stamped = head ^ sequence;
        if (length >= 8) {
            buf.putLong(offset, stamped);
            return;
        }
        for (int j = 0; j < length; j++, stamped >>>= 8) {
            buf.put(offset + j, (byte) stamped);
        }
    }

    /** The base payload as a fresh heap array (the RPC frameworks take and return arrays). */
    public static byte[] baseBytes(long seed, int stream, int length) {
        byte[] bytes = new byte[length];
        fillBase(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN), 0, seed, stream, length);
        return bytes;
    }

    /** The raw splitmix64 sequence of one stream: what section 10.2 draws its records from. */
    public static final class SplitMix {
        private long state;

        public SplitMix(long seed, int stream) {
            state = initialState(seed, stream);
        }

        public long next() {
            state += GOLDEN;
            return mix(state);
        }
    }

    private static long initialState(long seed, int stream) {
        return seed ^ (stream * GOLDEN);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }
}
