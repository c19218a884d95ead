package dev.ipclab.linuxipc;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * Fuzz target for the reading side of the linuxipc streams (issue 23): MessageInput, the logic
 * that MessageQueueInputStream and SharedMemoryInputStream share, over messages of any lengths
 * read in pieces of any sizes. The two classes themselves only add the kernel call that waits
 * for a message (msgrcv; semop on a semaphore set, then the slot's length, which is checked
 * against the slot's capacity); they cannot be driven without kernel objects. `mvn test` replays
 * src/test/resources/dev/ipclab/linuxipc/MessageInputFuzzTestInputs/read/.
 */
class MessageInputFuzzTest {
    private static final int ARRAY = 16;

    /**
     * Input: byte 0 shapes the reads; then messages, each a length byte and that many bytes (an
     * input that ends early ends its last message there; length 0 is the empty message that
     * ends the stream, as is the input's end). The stream must give exactly the messages' bytes
     * in order, then -1 for good, never reading outside a message.
     */
    @FuzzTest
    void read(byte[] input) throws Exception {
        if (input.length == 0) {
            return;
        }
        Messages stream = new Messages(input);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] b = new byte[ARRAY];
        for (int step = 0; ; step++) {
            int n = readOnce(stream, b, input[0], step);
            if (n < 0) {
                break;
            }
            got.write(b, 0, n);
            if (stream.available() < 0 || stream.available() > stream.left()) {
                throw new AssertionError("available " + stream.available() + " with "
                        + stream.left() + " left of the message");
            }
        }
        check(Arrays.equals(got.toByteArray(), expected(input)), "bytes differ from the messages'");
        check(stream.read() == -1 && stream.read(b, 0, 1) == -1, "a read after the end");
        check(stream.consumed == stream.whole, stream.consumed + " consumed() for "
                + stream.whole + " messages read whole");
    }

    /** One read() or read(b, off, len), the kind and size following the shape byte and step. */
    private static int readOnce(Messages stream, byte[] b, byte shape, int step) throws Exception {
        int mix = Byte.toUnsignedInt(shape) * (step + 1);
        if (mix % 3 == 0) {
            int one = stream.read();
            b[0] = (byte) one;
            return one < 0 ? -1 : 1;
        }
        int len = 1 + mix % ARRAY;
        int off = (step * 7) % (ARRAY - len + 1);
        int n = stream.read(b, off, len);
        if (n > len) {
            throw new AssertionError(n + " bytes read for " + len);
        }
        if (n > 0) {
            System.arraycopy(b, off, b, 0, n);
        }
        return n;
    }

    /** The bytes of the messages before the first empty one. */
    private static byte[] expected(byte[] input) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = 1;
        while (at < input.length && input[at] != 0) {
            int length = Math.min(Byte.toUnsignedInt(input[at]), input.length - at - 1);
            out.write(input, at + 1, length);
            at += 1 + Byte.toUnsignedInt(input[at]);
        }
        return out.toByteArray();
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    /** The messages of an input, as a transport would deliver them. */
    private static final class Messages extends MessageInput {
        private final byte[] data;
        private int next = 1;
        private int start;
        private int length;
        private long read;
        int consumed;
        int whole;

        Messages(byte[] data) {
            this.data = data;
        }

        @Override
        long next() {
            if (next >= data.length || data[next] == 0) {
                return 0;
            }
            start = next + 1;
            length = Math.min(Byte.toUnsignedInt(data[next]), data.length - start);
            next = start + Byte.toUnsignedInt(data[next]);
            read = 0;
            return length;
        }

        @Override
        void copy(long offset, byte[] b, int off, int n) {
            if (offset != read || n < 0 || offset + n > length) {
                throw new AssertionError("copy of [" + offset + ", +" + n + ") from a message of "
                        + length + " after " + read + " bytes");
            }
            System.arraycopy(data, start + (int) offset, b, off, n);
            read += n;
            if (read == length) {
                whole++;
            }
        }

        @Override
        void consumed() {
            consumed++;
        }

        /** Bytes of the current message not copied yet. */
        long left() {
            return length - read;
        }
    }
}
