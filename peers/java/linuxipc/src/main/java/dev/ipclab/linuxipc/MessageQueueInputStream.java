package dev.ipclab.linuxipc;

import java.io.IOException;

/**
 * An input stream over a System V message queue: the concatenation of the messages of one type,
 * until an empty message (what {@link MessageQueueOutputStream#close()} sends). Not thread-safe.
 * Closing the stream does not remove the queue.
 */
public final class MessageQueueInputStream extends MessageInput {
    private final QueueDirection direction;
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
        this.direction = QueueDirection.of(queue, type, messageSize);
    }

    /** Releases the buffer; messages still queued stay in the queue. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            direction.release();
        }
    }

    @Override
    long next() throws IOException {
        if (closed) {
            throw new IOException("stream closed");
        }
        return direction.receive();
    }

    @Override
    void copy(long offset, byte[] b, int off, int n) {
        direction.copy(offset, b, off, n);
    }
}
