package dev.ipclab.peer.frame;

import java.nio.ByteBuffer;

/**
 * The stream checksum of PROTOCOL.md section 11.1: the sum, modulo 2^64, of a payload read as
 * little-endian u64 words, the last word zero-padded. The server adds up what it received; the
 * client derives what it sent from the base's sum and each stamp, without touching the bytes.
 */
public final class StreamChecksum {
    private StreamChecksum() {}

    /** The word sum of buf[offset, offset + length) (a little-endian buffer). */
    public static long of(ByteBuffer buf, int offset, int length) {
        long sum = 0;
        int whole = length & ~7;
        int i = 0;
        for (; i < whole; i += 8) {
            sum += buf.getLong(offset + i);
        }
        if (i < length) {
            sum += tail(buf, offset + i, length - i);
        }
        return sum;
    }

    /** The last 1 to 7 bytes as a zero-padded little-endian word. */
    private static long tail(ByteBuffer buf, int offset, int bytes) {
        long word = 0;
        for (int j = bytes - 1; j >= 0; j--) {
            word = (word << 8) | (buf.get(offset + j) & 0xFF);
        }
        return word;
    }

    /**
     * What the payloads payload(seed, 1, s, size) for s in [first, first + count) add up to:
     * stamping XORs the first word (zero-padded below 8 bytes) with the sequence's low bytes, so
     * each payload's sum is the base's sum with that one word replaced.
     */
    public static long expected(long seed, int size, long first, long count) {
        if (size == 0) {
            return 0;
        }
        ByteBuffer base = Payload.base(seed, Payload.REQUEST_STREAM, size);
        long baseSum = of(base, 0, size);
        int stamped = Math.min(8, size);
        long firstWord = stamped == 8 ? base.getLong(0) : tail(base, 0, stamped);
        long mask = stamped == 8 ? -1L : (1L << (8 * stamped)) - 1;
        long rest = baseSum - firstWord;
        long sum = 0;
        for (long s = first, end = first + count; s != end; s++) {
            sum += rest + (firstWord ^ (s & mask));
        }
        return sum;
    }
}
