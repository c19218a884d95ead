package dev.ipclab.peer.rpc;

import dev.ipclab.peer.frame.Payload;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One stream's payloads (section 3) for RPC, where they travel as arrays: the base of the last
 * length asked for is kept, so a run of equal sizes computes it once.
 */
final class Payloads {
    private record Base(int length, byte[] bytes) {}

    private final long seed;
    private final int stream;
    private final long head;
    private volatile Base base = new Base(0, new byte[0]);

    Payloads(long seed, int stream) {
        this.seed = seed;
        this.stream = stream;
        this.head = Payload.head(seed, stream);
    }

    /** A fresh stamped payload: the caller may hand it to a framework that keeps it. */
    byte[] stamped(long sequence, int length) {
        byte[] bytes = base(length).clone();
        stamp(bytes, sequence);
        return bytes;
    }

    /** Stamps an array made by {@link #stamped} (or a clone of the base) for another sequence. */
    void stamp(byte[] bytes, long sequence) {
        Payload.stamp(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN), 0, bytes.length, head,
                sequence);
    }

    /**
     * @return the first offset where {@code actual} differs from the stamped payload of its
     *     sequence and {@code expectedLength}; the shorter length if only the lengths differ; -1
     */
    long firstMismatch(long sequence, int expectedLength, ByteBuffer actual) {
        int length = actual.remaining();
        int common = Math.min(length, expectedLength);
        byte[] expected = base(expectedLength);
        long stamp = head ^ sequence;
        int stamped = Math.min(8, common);
        int position = actual.position();
        for (int j = 0; j < stamped; j++, stamp >>>= 8) {
            if (actual.get(position + j) != (byte) stamp) {
                return j;
            }
        }
        int rest = ByteBuffer.wrap(expected, stamped, common - stamped)
                .mismatch(actual.slice(position + stamped, common - stamped));
        if (rest >= 0) {
            return stamped + rest;
        }
        return length == expectedLength ? -1 : common;
    }

    long firstMismatch(long sequence, int expectedLength, byte[] actual) {
        return firstMismatch(sequence, expectedLength, ByteBuffer.wrap(actual));
    }

    private byte[] base(int length) {
        Base current = base;
        if (current.length() != length) {
            current = new Base(length, Payload.baseBytes(seed, stream, length));
            base = current;
        }
        return current.bytes();
    }
}
