package dev.ipclab.peer.server;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.transport.DatagramPort;
import java.nio.ByteBuffer;

/**
 * A fuzz input as the datagrams a datagram server receives: after the mode byte, each datagram
 * is a u16 little-endian size and that many bytes (fewer if the input ends). A datagram larger
 * than the receive buffer is cut to it and reports its real size, as MSG_TRUNC does. At the
 * input's end the server is stopped, the way a signal stops it. Answers are counted and dropped.
 */
final class FuzzPort implements DatagramPort {
    /** Small, so that a fuzz input can exceed the receive buffer; fits the vectors' 1 KiB MARKs. */
    static final int MAX_PAYLOAD = 2000;

    private final byte[] data;
    private final boolean lossy;
    private int next = 1;
    private Server server;
    private long replies;

    /** @param lossy udp (a stream's messages may be lost), else uds-dgram */
    FuzzPort(byte[] data, boolean lossy) {
        this.data = data;
        this.lossy = lossy;
    }

    /** The server to stop once the input is used up. */
    void serving(Server server) {
        this.server = server;
    }

    @Override
    public int receive(ByteBuffer dst) {
        if (next + 2 > data.length) {
            server.stop();
            return 0;
        }
        int size = Byte.toUnsignedInt(data[next]) | Byte.toUnsignedInt(data[next + 1]) << 8;
        int start = next + 2;
        int real = Math.min(size, data.length - start);
        next = start + real;
        dst.put(data, start, Math.min(real, dst.remaining()));
        return real;
    }

    @Override
    public String endpoint() {
        return "fuzz";
    }

    @Override
    public int maxPayload() {
        return MAX_PAYLOAD;
    }

    /** udp's and uds-dgram's: the whole datagram. */
    @Override
    public int maxMessage() {
        return Frame.HEADER_SIZE + MAX_PAYLOAD;
    }

    @Override
    public boolean lossy() {
        return lossy;
    }

    /** udp: one byte more than the largest datagram; uds-dgram: exactly it (section 4.5). */
    @Override
    public int receiveCapacity() {
        return Frame.HEADER_SIZE + MAX_PAYLOAD + (lossy ? 1 : 0);
    }

    @Override
    public Object source() {
        return "client";
    }

    @Override
    public void reply(ByteBuffer frame) {
        replies++;
        frame.position(frame.limit());
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    @Override
    public void wake() {}

    @Override
    public void close() {}
}
