package dev.ipclab.peer.transport;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A datagram server's socket (udp, uds-dgram; a broker's queue, 4.7; ZeroMQ's and NNG's sockets,
 * 4.8, 4.9; Redis's lists, 4.10; NATS's subjects, 4.11): one datagram per frame, answers to its
 * source.
 */
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
     * The server's first buffer: {@link #receiveCapacity()}, except where a message waits whole
     * until it is copied (a broker's, 4.7): there the buffer starts small and grows to fit.
     */
    default int firstCapacity() {
        return receiveCapacity();
    }

    /**
     * Receives one datagram into dst from 0 and remembers its source.
     *
     * @return the datagram's real size, which may exceed what dst holds
     * @throws FrameRejectedException a message the port itself rejects (a broker's whose body is
     *     not bytes); the server goes on
     */
    int receive(ByteBuffer dst) throws IOException;

    /**
     * Receives as {@link #receive(ByteBuffer)}, told whether a stream's messages are due (a MARK
     * announced some that have not come): a port whose stream messages come on a socket of their
     * own (ZeroMQ's PULL, 4.8) then reads only that socket, so that no control frame overtakes
     * them.
     */
    default int receive(ByteBuffer dst, boolean messageDue) throws IOException {
        return receive(dst);
    }

    /**
     * A valid MARK of count messages of messageSize bytes is about to be answered: a port whose
     * stream needs it (ZeroMQ's high-water mark, 4.8; Redis's batches and credits, 4.10) sets
     * itself up for them.
     */
    default void streamStarts(int messageSize, long count) throws IOException {}

    /**
     * Copies the message just received, which did not fit, into the larger dst; only a port
     * whose {@link #firstCapacity()} is below its {@link #receiveCapacity()} is asked.
     *
     * @return its size
     */
    default int receiveAgain(ByteBuffer dst) throws IOException {
        throw new UnsupportedOperationException("a datagram is gone once received");
    }

    /**
     * Why the last datagram, a well-formed frame, cannot be answered: a broker's message without
     * reply-to (4.7), rejected as a malformed frame is. Null: it can be.
     */
    default String answerProblem() {
        return null;
    }

    /**
     * The server a responder is a client of, for READY's {@code broker} (Redis 4.10, NATS
     * 4.11), or null.
     */
    default String broker() {
        return null;
    }

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
