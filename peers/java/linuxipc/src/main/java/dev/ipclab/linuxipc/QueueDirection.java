package dev.ipclab.linuxipc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One direction of a System V queue as the queue streams use it: the messages of one type, and
 * a native message buffer for texts of up to messageSize bytes, released with the stream.
 */
record QueueDirection(SysVMessageQueue queue, long type, int messageSize, Arena arena,
        MemorySegment message) {
    static QueueDirection of(SysVMessageQueue queue, long type, int messageSize) {
        if (type < 1 || messageSize < 1) {
            throw new IllegalArgumentException("type and messageSize must be positive");
        }
        Arena arena = Arena.ofShared();
        return new QueueDirection(queue, type, messageSize, arena,
                SysVMessageQueue.allocateMessage(arena, messageSize));
    }

    /** Sends the first length text bytes of the buffer as one message of this type. */
    void send(long length) throws LinuxIpcException {
        queue.send(message, type, length);
    }
}
