package dev.ipclab.peer.transport;

import dev.ipclab.linuxipc.LinuxIpc;
import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.PosixMessageQueue;
import dev.ipclab.linuxipc.SysVMessageQueue;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A message channel over kernel message queues (sysv-mq, posix-mq; PROTOCOL.md section 4.1):
 * messages of at most M = 8192 bytes, one buffer per direction made once; a send copies the
 * bytes into the send buffer, then calls the queue's send. The buffers are native segments in an
 * arena of the channel's own, or, with {@code --java-binding jni-copy} (4.6), Java arrays that the
 * binding copies per call as lajp did ({@link Arrays}); subclasses reach their queues through
 * {@link #sendTo} and {@link #receiveFrom}, which pick the buffers' kind.
 */
abstract class QueueChannel implements MessageChannel {
    static final int M = 8192;

    /** How a queue's message buffer for M bytes of text is made. */
    interface Allocation {
        MemorySegment allocate(Arena arena, long textLength);
    }

    final Arena arena = Arena.ofShared();
    /** The native buffers; null with jni-copy. */
    private final MemorySegment sendBuffer;
    private final MemorySegment receiveBuffer;
    /** jni-copy's arrays; null otherwise. */
    private final MessageArrays arrays;
    private final ByteBuffer sendText;
    private final ByteBuffer receiveText;

    /** @param textOffset where a message's bytes start in its buffer (after sysv's mtype) */
    QueueChannel(Allocation allocation, long textOffset) {
        if (LinuxIpc.binding() == LinuxIpc.Binding.JNI_COPY) {
            arrays = new MessageArrays();
            sendBuffer = null;
            receiveBuffer = null;
            sendText = null;
            receiveText = ByteBuffer.wrap(arrays.received);
        } else {
            arrays = null;
            sendBuffer = allocation.allocate(arena, M);
            receiveBuffer = allocation.allocate(arena, M);
            sendText = sendBuffer.asSlice(textOffset).asByteBuffer();
            receiveText = receiveBuffer.asSlice(textOffset).asByteBuffer();
        }
        // Frames are little-endian; a load server reads a request's header in place (11.5.5).
        receiveText.order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public final int maxMessage() {
        return M;
    }

    @Override
    public final void send(ByteBuffer src, int offset, int length) throws IOException {
        if (arrays != null) {
            arrays.put(src, offset, length);
        } else {
            sendText.put(0, src, offset, length);
        }
        send(length);
    }

    /** Sends the first length bytes of the send buffer's text as one message. */
    abstract void send(int length) throws IOException;

    /**
     * Sends a whole frame [position, limit) cut into messages of exactly chunk bytes, the last
     * one shorter (4.1); chunk is M, or a smaller reply queue's message size (11.5.5).
     */
    final void sendFrame(ByteBuffer frame, int chunk) throws IOException {
        int offset = frame.position();
        int limit = frame.limit();
        do {
            int n = Math.min(chunk, limit - offset);
            send(frame, offset, n);
            offset += n;
        } while (offset < limit);
    }

    /** sysv-mq: the send buffer's first length bytes as one message of the type. */
    final void sendTo(SysVMessageQueue queue, long type, int length) throws LinuxIpcException {
        if (arrays != null) {
            queue.send(type, arrays.pending, length);
        } else {
            queue.send(sendBuffer, type, length);
        }
    }

    /** posix-mq: the send buffer's first length bytes as one message, priority 0. */
    final void sendTo(PosixMessageQueue queue, int length) throws LinuxIpcException {
        if (arrays != null) {
            queue.send(arrays.pending, length, 0);
        } else {
            queue.send(sendBuffer, length, 0);
        }
    }

    /** sysv-mq: the next message of the type into the receive buffer; its length. */
    final int receiveFrom(SysVMessageQueue queue, long type) throws LinuxIpcException {
        return arrays != null ? queue.receive(arrays.received, type)
                : (int) queue.receive(receiveBuffer, type);
    }

    /**
     * posix-mq: the next message into the receive buffer; its length, or -1 when timeoutNanos
     * (above 0; 0 waits without a timeout) passed first.
     */
    final int receiveFrom(PosixMessageQueue queue, long timeoutNanos) throws LinuxIpcException {
        if (timeoutNanos <= 0) {
            return arrays != null ? queue.receive(arrays.received) : (int) queue.receive(receiveBuffer);
        }
        return arrays != null ? queue.receive(arrays.received, timeoutNanos)
                : (int) queue.receive(receiveBuffer, timeoutNanos);
    }

    /** posix-mq: receiveFrom with a timeout, whose passing is a timeout naming the queue. */
    final int receiveWithin(PosixMessageQueue queue, String name, long timeoutNanos)
            throws IOException {
        int n = receiveFrom(queue, timeoutNanos);
        if (n < 0) {
            throw new ReceiveTimeoutException("no message on " + name + " within --io-timeout ("
                    + timeoutNanos / 1e9 + " s)");
        }
        return n;
    }

    @Override
    public final ByteBuffer received() {
        return receiveText;
    }

    /**
     * jni-copy's buffers: each message to send goes into an array of exactly its length, because
     * GetByteArrayElements copies the whole array (lajp's callers passed arrays of the message's
     * size); a frame's full M-byte messages and its last one alternate between two arrays, made
     * again only when the last one's length changes. Messages are received into one M-byte
     * array, of which SetByteArrayRegion writes only the bytes received.
     */
    private static final class MessageArrays {
        final byte[] received = new byte[M];
        private final byte[] full = new byte[M];
        private byte[] last = new byte[0];
        /** The message put last. */
        byte[] pending;

        void put(ByteBuffer src, int offset, int length) {
            if (length == M) {
                pending = full;
            } else {
                if (last.length != length) {
                    last = new byte[length];
                }
                pending = last;
            }
            src.get(offset, pending, 0, length);
        }
    }
}
