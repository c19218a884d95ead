package dev.ipclab.linuxipc;

import java.io.IOException;
import java.io.OutputStream;

/**
 * An output stream over a System V message queue: every write is cut into messages of at most
 * the message size, all of one message type; {@link #close()} sends an empty message, which a
 * {@link MessageQueueInputStream} reads as end of stream. Each unbuffered {@code write(int)} is
 * a message of its own, so wrap it in a {@link java.io.BufferedOutputStream}. Not thread-safe.
 * Closing the stream does not remove the queue.
 */
public final class MessageQueueOutputStream extends OutputStream {
    /** The Linux default {@code msgmax}: the largest message a queue accepts by default. */
    public static final int DEFAULT_MESSAGE_SIZE = 8192;

    private final QueueDirection direction;
    private final byte[] one = new byte[1];
    private boolean closed;

    /**
     * A stream with messages of at most {@link #DEFAULT_MESSAGE_SIZE} bytes.
     *
     * @param queue the queue
     * @param type the message type of this direction, at least 1
     */
    public MessageQueueOutputStream(SysVMessageQueue queue, long type) {
        this(queue, type, DEFAULT_MESSAGE_SIZE);
    }

    /**
     * A stream with messages of at most messageSize bytes.
     *
     * @param queue the queue
     * @param type the message type of this direction, at least 1
     * @param messageSize the largest message, at least 1 and at most the queue's msgmax
     */
    public MessageQueueOutputStream(SysVMessageQueue queue, long type, int messageSize) {
        this.direction = QueueDirection.of(queue, type, messageSize);
    }

    /**
     * Sends one byte as a message of its own.
     *
     * @param b the byte
     * @throws IOException if closed or msgsnd fails
     */
    @Override
    public void write(int b) throws IOException {
        ensureOpen();
        one[0] = (byte) b;
        direction.send(one, 0, 1);
    }

    /**
     * Sends the bytes as ceil(len / messageSize) messages; nothing for len 0.
     *
     * @param b the bytes
     * @param off first byte
     * @param len how many
     * @throws IOException if closed or msgsnd fails
     */
    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        ensureOpen();
        Bounds.checkArray(b, off, len);
        while (len > 0) {
            int n = Math.min(len, direction.messageSize());
            direction.send(b, off, n);
            off += n;
            len -= n;
        }
    }

    /**
     * Sends the end-of-stream marker (an empty message) once and releases the buffer.
     *
     * @throws IOException if msgsnd fails
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            direction.send(one, 0, 0);
        } finally {
            direction.release();
        }
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("stream closed");
        }
    }
}
