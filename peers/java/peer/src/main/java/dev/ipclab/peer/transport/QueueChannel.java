package dev.ipclab.peer.transport;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A message channel over kernel message queues (sysv-mq, posix-mq; PROTOCOL.md section 4.1):
 * messages of at most M = 8192 bytes, one native buffer per direction made once in an arena of
 * the channel's own; a send copies the bytes into the send buffer, then calls the queue's send.
 */
abstract class QueueChannel implements MessageChannel {
    static final int M = 8192;

    /** How a queue's message buffer for M bytes of text is made. */
    interface Allocation {
        MemorySegment allocate(Arena arena, long textLength);
    }

    final Arena arena = Arena.ofShared();
    final MemorySegment sendBuffer;
    final MemorySegment receiveBuffer;
    private final ByteBuffer sendText;
    private final ByteBuffer receiveText;

    /** @param textOffset where a message's bytes start in its buffer (after sysv's mtype) */
    QueueChannel(Allocation allocation, long textOffset) {
        sendBuffer = allocation.allocate(arena, M);
        receiveBuffer = allocation.allocate(arena, M);
        sendText = sendBuffer.asSlice(textOffset).asByteBuffer();
        // Frames are little-endian; a load server reads a request's header in place (11.5.5).
        receiveText = receiveBuffer.asSlice(textOffset).asByteBuffer()
                .order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public final int maxMessage() {
        return M;
    }

    @Override
    public final void send(ByteBuffer src, int offset, int length) throws IOException {
        sendText.put(0, src, offset, length);
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

    @Override
    public final ByteBuffer received() {
        return receiveText;
    }
}
