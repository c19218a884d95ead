package dev.ipclab.peer.server;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.transport.DatagramPort;
import java.nio.ByteBuffer;

/**
 * A datagram port in memory for a server under test: one client, nothing to open or close, a
 * datagram as large as a header and the largest payload. When the subclass has no datagram left
 * the server is stopped, the way a signal stops it; the subclass also takes the answers.
 */
abstract class MemoryPort implements DatagramPort {
    private final int maxPayload;
    private final boolean lossy;
    private final int receiveCapacity;
    private Server server;

    /** @param lossy udp (a stream's messages may be lost), else uds-dgram */
    MemoryPort(int maxPayload, boolean lossy, int receiveCapacity) {
        this.maxPayload = maxPayload;
        this.lossy = lossy;
        this.receiveCapacity = receiveCapacity;
    }

    /** The server to stop once the datagrams are used up. */
    final void serving(Server server) {
        this.server = server;
    }

    /**
     * Puts the next datagram into dst, cut to what it holds.
     *
     * @return the datagram's real size, or -1 when there is none left
     */
    abstract int next(ByteBuffer dst);

    @Override
    public final int receive(ByteBuffer dst) {
        int size = next(dst);
        if (size < 0) {
            server.stop();
            return 0;
        }
        return size;
    }

    @Override
    public String endpoint() {
        return "memory";
    }

    @Override
    public int maxPayload() {
        return maxPayload;
    }

    /** udp's and uds-dgram's: the whole datagram. */
    @Override
    public int maxMessage() {
        return Frame.HEADER_SIZE + maxPayload;
    }

    @Override
    public boolean lossy() {
        return lossy;
    }

    @Override
    public int receiveCapacity() {
        return receiveCapacity;
    }

    @Override
    public Object source() {
        return "client";
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
