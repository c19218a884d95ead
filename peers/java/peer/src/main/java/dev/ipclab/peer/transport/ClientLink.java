package dev.ipclab.peer.transport;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/** The client's side of any mechanism: send one frame, receive one frame. */
public interface ClientLink extends Closeable {
    /** Sends the whole frame [position, limit) with one write call where the kernel allows. */
    void send(ByteBuffer frame) throws IOException;

    /**
     * Sends a stream's bare message (section 11.1), which nothing answers: as a frame, except
     * over a broker, where only a frame carries a reply-to and a correlation-id (4.7).
     */
    default void sendMessage(ByteBuffer message) throws IOException {
        send(message);
    }

    /**
     * Receives one frame into dst from offset 0. A stream reads exactly frameSize bytes (fails at
     * end of stream); a datagram link takes whatever one datagram holds, so a wrong size shows.
     *
     * @return the number of bytes received
     */
    int receive(ByteBuffer dst, int frameSize) throws IOException;

    /**
     * How large a receive buffer for frames of frameSize must be: the frame itself, unless the
     * link could deliver more in one receive (a datagram) and must see that it did.
     */
    default int receiveCapacity(int frameSize) {
        return frameSize;
    }

    /** Whether frames may be lost on the way (udp): a stream then counts them (section 11.1). */
    default boolean lossy() {
        return false;
    }

    /**
     * A lossy link's receive that gives up after timeoutNanos without failing, so the caller can
     * send again (a stream's MARK and END). Not on the hot path.
     *
     * @return the bytes received, or -1 if nothing came in time
     */
    default int receiveWithin(ByteBuffer dst, long timeoutNanos) throws IOException {
        throw new UnsupportedOperationException("only a lossy link receives with a deadline");
    }
}
