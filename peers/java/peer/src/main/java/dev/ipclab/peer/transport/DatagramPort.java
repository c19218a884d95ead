package dev.ipclab.peer.transport;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/** A datagram server's socket (udp, uds-dgram): one datagram per frame, answers to its source. */
public interface DatagramPort extends Closeable {
    /** The endpoint for the READY line. */
    String endpoint();

    /** The largest payload this side carries: a REQUEST wanting more is {@code length too large}. */
    int maxPayload();

    /**
     * A stream's largest message (section 11.1 step 10): the whole datagram, nothing taken off
     * for a header. A MARK announcing more is {@code bad stream frame}.
     */
    int maxMessage();

    /** Whether datagrams may be lost (udp): a stream server then cannot count on a MARK's count. */
    default boolean lossy() {
        return false;
    }

    /** How large the receive buffer must be (section 4.5: 24 + the limit, or one more). */
    int receiveCapacity();

    /**
     * Receives one datagram into dst from 0 and remembers its source.
     *
     * @return the datagram's real size, which may exceed what dst holds
     */
    int receive(ByteBuffer dst) throws IOException;

    /** The last datagram's source, as a key for its END count (may allocate: not per request). */
    Object source();

    /** Sends frame [0, limit) to the last datagram's source. */
    void reply(ByteBuffer frame) throws IOException;

    /** False once the socket is closed: a failed receive then ends the server. */
    boolean isOpen();

    /** Makes a blocked {@link #receive} return; the server then sees it is stopping. */
    void wake() throws IOException;

    /** Releases the socket and removes what it created (uds-dgram: its path). Idempotent. */
    @Override
    void close() throws IOException;
}
