package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An input stream over a System V message queue: the concatenation of the messages of one type,
 * until an empty message (what {@link MessageQueueOutputStream#close()} sends). Not thread-safe.
 * Closing the stream does not remove the queue.
 */
public final class MessageQueueInputStream extends InputStream {
    private final SysVMessageQueue queue;
    private final long type;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment message;
    private long position;
    private long limit;
    private boolean eof;
    private boolean closed;

    /**
     * A stream for messages of at most {@link MessageQueueOutputStream#DEFAULT_MESSAGE_SIZE}.
     *
     * @param queue the queue
     * @param type the message type of this direction, at least 1
     */
    public MessageQueueInputStream(SysVMessageQueue queue, long type) {
        this(queue, type, MessageQueueOutputStream.DEFAULT_MESSAGE_SIZE);
    }

    /**
     * A stream for messages of at most messageSize bytes.
     *
     * @param queue the queue
     * @param type the message type of this direction, at least 1
     * @param messageSize the largest message the writer sends
     */
    public MessageQueueInputStream(SysVMessageQueue queue, long type, int messageSize) {
        if (type < 1 || messageSize < 1) {
            throw new IllegalArgumentException("type and messageSize must be positive");
        }
        this.queue = queue;
        this.type = type;
        this.message = SysVMessageQueue.allocateMessage(arena, messageSize);
    }

    /**
     * Reads one byte, waiting for a message if none is buffered.
     *
     * @return the byte, or -1 at end of stream
     * @throws IOException if closed or msgrcv fails
     */
    @Override
    public int read() throws IOException {
        if (!fill()) {
            return -1;
        }
        return Byte.toUnsignedInt(message.get(JAVA_BYTE, SysVMessageQueue.TEXT_OFFSET + position++));
    }

    /**
     * Reads up to len bytes from the current message, waiting for one if none is buffered.
     *
     * @param b where to
     * @param off first byte
     * @param len most bytes
     * @return bytes read, or -1 at end of stream
     * @throws IOException if closed or msgrcv fails
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
        MemorySegment.copy(message, JAVA_BYTE, SysVMessageQueue.TEXT_OFFSET + position, b, off, n);
        position += n;
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

    /** Releases the buffer; messages still queued stay in the queue. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            arena.close();
        }
    }

    private boolean fill() throws IOException {
        if (closed) {
            throw new IOException("stream closed");
        }
        while (position == limit) {
            if (eof) {
                return false;
            }
            long n = queue.receive(message, type);
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
