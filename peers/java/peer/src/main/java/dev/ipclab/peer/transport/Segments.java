package dev.ipclab.peer.transport;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The native segment behind each direct buffer a native call sends from or receives into, made
 * once per buffer (request and END; or receive buffer, response and END_ACK), so no round trip
 * allocates (uds-dgram, ZeroMQ). Frames always start at position 0.
 */
final class Segments {
    private final ByteBuffer[] buffers = new ByteBuffer[3];
    private final MemorySegment[] segments = new MemorySegment[3];
    private int next;

    /** The segment of the whole buffer, [0, capacity). */
    MemorySegment of(ByteBuffer buffer) {
        if (buffer.position() != 0) {
            throw new IllegalArgumentException("a frame starts at position 0");
        }
        for (int i = 0; i < buffers.length; i++) {
            if (buffers[i] == buffer) {
                return segments[i];
            }
        }
        MemorySegment segment = MemorySegment.ofBuffer(buffer.duplicate().clear());
        buffers[next] = buffer;
        segments[next] = segment;
        next = (next + 1) % buffers.length;
        return segment;
    }
}
