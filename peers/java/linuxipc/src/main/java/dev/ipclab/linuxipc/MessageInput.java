package dev.ipclab.linuxipc;

import java.io.IOException;
import java.io.InputStream;

/**
 * What both message input streams share: the current message's bytes are served in order, the
 * next message is fetched once they are used up, and an empty message ends the stream.
 */
abstract class MessageInput extends InputStream {
    private long position;
    private long limit;
    private boolean eof;
    private final byte[] one = new byte[1];

    /**
     * Waits for the next message.
     *
     * @return its length; 0 is end of stream
     */
    abstract long next() throws IOException;

    /** Copies n bytes of the current message, from offset, into b[off, off + n). */
    abstract void copy(long offset, byte[] b, int off, int n);

    /** Called once every byte of the current message has been read. */
    void consumed() throws IOException {}

    /**
     * Reads one byte, waiting for a message if none is buffered.
     *
     * @return the byte, or -1 at end of stream
     * @throws IOException if closed or the transport fails
     */
    @Override
    public int read() throws IOException {
        return read(one, 0, 1) < 0 ? -1 : Byte.toUnsignedInt(one[0]);
    }

    /**
     * Reads up to len bytes of the current message, waiting for one if none is buffered.
     *
     * @param b where to
     * @param off first byte
     * @param len most bytes
     * @return bytes read, or -1 at end of stream
     * @throws IOException if closed or the transport fails
     */
    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Bounds.checkArray(b, off, len);
        if (len == 0) {
            return 0;
        }
        if (!fill()) {
            return -1;
        }
        int n = (int) Math.min(len, limit - position);
        copy(position, b, off, n);
        position += n;
        if (position == limit) {
            consumed();
        }
        return n;
    }

    /**
     * Bytes left of the current message.
     *
     * @return that count
     */
    @Override
    public int available() {
        return (int) (limit - position);
    }

    private boolean fill() throws IOException {
        while (position == limit) {
            if (eof) {
                return false;
            }
            long n = next();
            if (n == 0) {
                eof = true;
                return false;
            }
            position = 0;
            limit = n;
        }
        return true;
    }
}
