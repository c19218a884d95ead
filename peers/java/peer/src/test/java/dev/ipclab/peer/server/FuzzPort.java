package dev.ipclab.peer.server;

import dev.ipclab.peer.frame.Frame;
import java.nio.ByteBuffer;

/**
 * A fuzz input as the datagrams a datagram server receives: after the mode byte, each datagram
 * is a u16 little-endian size and that many bytes (fewer if the input ends). A datagram larger
 * than the receive buffer is cut to it and reports its real size, as MSG_TRUNC does. At the
 * input's end the server is stopped, the way a signal stops it. Answers are counted and dropped.
 */
final class FuzzPort extends MemoryPort {
    /** Small, so that a fuzz input can exceed the receive buffer; fits the vectors' 1 KiB MARKs. */
    static final int MAX_PAYLOAD = 2000;

    private final byte[] data;
    private int next = 1;
    private long replies;

    /**
     * @param lossy udp, whose receive buffer is one byte more than the largest datagram, else
     *     uds-dgram, exactly it (section 4.5)
     */
    FuzzPort(byte[] data, boolean lossy) {
        super(MAX_PAYLOAD, lossy, Frame.HEADER_SIZE + MAX_PAYLOAD + (lossy ? 1 : 0));
        this.data = data;
    }

    @Override
    int next(ByteBuffer dst) {
        if (next + 2 > data.length) {
            return -1;
        }
        int size = Byte.toUnsignedInt(data[next]) | Byte.toUnsignedInt(data[next + 1]) << 8;
        int start = next + 2;
        int real = Math.min(size, data.length - start);
        next = start + real;
        dst.put(data, start, Math.min(real, dst.remaining()));
        return real;
    }

    @Override
    public void reply(ByteBuffer frame) {
        replies++;
        frame.position(frame.limit());
    }
}
