package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One direction of a System V queue as the queue streams use it: the messages of one type, and
 * a message buffer for texts of up to messageSize bytes, released with the stream. The buffer is
 * native, or, with the {@code jni-copy} binding, Java arrays that the binding copies per call
 * (as lajp's callers handed it their byte[]): an outgoing message goes as the caller's array
 * when it is exactly that array, else in an array of exactly its length (the binding copies
 * whole arrays), and messages arrive in one array of messageSize bytes.
 */
final class QueueDirection {
    private final SysVMessageQueue queue;
    private final long type;
    private final int messageSize;
    private final Arena arena;
    /** The native buffer; null with jni-copy. */
    private final MemorySegment message;
    /** jni-copy: the received message, a full outgoing one, the last shorter one. */
    private final byte[] received;
    private final byte[] full;
    private byte[] last = new byte[0];

    private QueueDirection(SysVMessageQueue queue, long type, int messageSize) {
        this.queue = queue;
        this.type = type;
        this.messageSize = messageSize;
        boolean arrays = LinuxIpc.binding() == LinuxIpc.Binding.JNI_COPY;
        this.arena = arrays ? null : Arena.ofShared();
        this.message = arrays ? null : SysVMessageQueue.allocateMessage(arena, messageSize);
        this.received = arrays ? new byte[messageSize] : null;
        this.full = arrays ? new byte[messageSize] : null;
    }

    static QueueDirection of(SysVMessageQueue queue, long type, int messageSize) {
        if (type < 1 || messageSize < 1) {
            throw new IllegalArgumentException("type and messageSize must be positive");
        }
        return new QueueDirection(queue, type, messageSize);
    }

    int messageSize() {
        return messageSize;
    }

    /** Sends b[off, off + n), n at most messageSize, as one message of this type. */
    void send(byte[] b, int off, int n) throws LinuxIpcException {
        if (message != null) {
            MemorySegment.copy(b, off, message, JAVA_BYTE, SysVMessageQueue.TEXT_OFFSET, n);
            queue.send(message, type, n);
            return;
        }
        byte[] text = b;
        if (off != 0 || n != b.length) {
            text = n == messageSize ? full : last.length == n ? last : (last = new byte[n]);
            System.arraycopy(b, off, text, 0, n);
        }
        queue.send(type, text, n);
    }

    /** Waits for the next message of this type: its text length (0 is end of stream). */
    long receive() throws LinuxIpcException {
        return message != null ? queue.receive(message, type) : queue.receive(received, type);
    }

    /** Copies n bytes at offset of the received text into b[off, off + n). */
    void copy(long offset, byte[] b, int off, int n) {
        if (message != null) {
            MemorySegment.copy(message, JAVA_BYTE, SysVMessageQueue.TEXT_OFFSET + offset, b, off, n);
        } else {
            System.arraycopy(received, (int) offset, b, off, n);
        }
    }

    /** Frees the native buffer (the arrays go with the stream). */
    void release() {
        if (arena != null) {
            arena.close();
        }
    }
}
