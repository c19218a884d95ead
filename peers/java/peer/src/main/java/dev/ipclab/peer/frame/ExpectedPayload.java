package dev.ipclab.peer.frame;

import java.nio.ByteBuffer;

/**
 * What a receiver must find in every payload of one (seed, stream, length): the base is computed
 * once, and {@link Check} compares a received payload with base + stamp without allocating.
 */
public final class ExpectedPayload {
    private final ByteBuffer base;
    private final long head;
    private final int length;

    public ExpectedPayload(long seed, int stream, int length) {
        this.base = Payload.base(seed, stream, length);
        this.head = Payload.head(seed, stream);
        this.length = length;
    }

    public int length() {
        return length;
    }

    /** Binds this expectation to where payloads arrive: the views are made once, here. */
    public Check bind(ByteBuffer received, int offset) {
        return new Check(received, offset);
    }

    /** Compares payloads landing at one place of one receive buffer. */
    public final class Check {
        private final ByteBuffer received;
        private final int offset;
        private final ByteBuffer receivedTail;
        private final ByteBuffer baseTail;

        private Check(ByteBuffer received, int offset) {
            this.received = received;
            this.offset = offset;
            int tail = Math.max(0, length - 8);
            this.receivedTail = received.slice(offset + length - tail, tail);
            this.baseTail = base.slice(length - tail, tail);
        }

        public ByteBuffer buffer() {
            return received;
        }

        public int offset() {
            return offset;
        }

        ExpectedPayload expected() {
            return ExpectedPayload.this;
        }

        /** @return the first offset where the payload differs from the one for sequence, or -1 */
        public int firstMismatch(long sequence) {
            long stamped = head ^ sequence;
            int stampedBytes = Math.min(8, length);
            for (int j = 0; j < stampedBytes; j++, stamped >>>= 8) {
                if (received.get(offset + j) != (byte) stamped) {
                    return j;
                }
            }
            // ByteBuffer.mismatch is vectorised: a 128 MiB compare costs milliseconds.
            int tailMismatch = receivedTail.mismatch(baseTail);
            return tailMismatch < 0 ? -1 : stampedBytes + tailMismatch;
        }
    }
}
