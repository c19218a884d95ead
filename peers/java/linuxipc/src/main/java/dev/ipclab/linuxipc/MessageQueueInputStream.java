package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

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
            direction.arena().close();
        }
    }

    @Override
    long next() throws IOException {
        if (closed) {
            throw new IOException("stream closed");
        }
        return direction.queue().receive(direction.message(), direction.type());
    }

    @Override
    void copy(long offset, byte[] b, int off, int n) {
        MemorySegment.copy(direction.message(), JAVA_BYTE, SysVMessageQueue.TEXT_OFFSET + offset, b, off, n);
    }
}
