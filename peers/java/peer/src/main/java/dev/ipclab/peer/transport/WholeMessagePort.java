package dev.ipclab.peer.transport;

import dev.ipclab.peer.frame.Frame;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * What the ports over a library that holds each message whole share (a broker's queue, 4.7;
 * ZeroMQ's sockets, 4.8; NATS's subjects, 4.11): frames up to {@link Frame#MAX_PAYLOAD} (NATS:
 * its server's max_payload), a server buffer that starts small and grows to fit
 * ({@link #receiveAgain}), and one source for every client.
 */
abstract class WholeMessagePort implements DatagramPort {
    /** The server's first buffer; a larger message grows it ({@link #receiveAgain}). */
    private static final int FIRST_CAPACITY = 64 * 1024;

    private final String endpoint;
    private final int maxPayload;
    private final int maxMessage;

    WholeMessagePort(String endpoint) {
        this(endpoint, Frame.MAX_PAYLOAD, Frame.MAX_PAYLOAD);
    }

    /**
     * A library whose messages are capped below a frame's largest (NATS's max_payload, 4.11).
     *
     * @param maxPayload a REQUEST wanting more is {@code length too large}
     * @param maxMessage a MARK announcing larger stream messages is {@code bad stream frame}
     */
    WholeMessagePort(String endpoint, int maxPayload, int maxMessage) {
        this.endpoint = endpoint;
        this.maxPayload = maxPayload;
        this.maxMessage = maxMessage;
    }

    @Override
    public final String endpoint() {
        return endpoint;
    }

    @Override
    public final int maxPayload() {
        return maxPayload;
    }

    @Override
    public final int maxMessage() {
        return maxMessage;
    }

    @Override
    public final int receiveCapacity() {
        return Frame.HEADER_SIZE + Frame.MAX_PAYLOAD;
    }

    /** The library has each message whole: the server's buffer starts small and grows to fit. */
    @Override
    public final int firstCapacity() {
        return FIRST_CAPACITY;
    }

    /**
     * A receive with no stream message due; a port whose stream messages come apart from its
     * frames (ZeroMQ's, NNG's PULL; Redis's batches) implements {@link #receive(ByteBuffer,
     * boolean)}, one that cannot tell them apart (a broker's queue) this.
     */
    @Override
    public int receive(ByteBuffer dst) throws IOException {
        return receive(dst, false);
    }

    /**
     * A message the library holds (ZeroMQ's, NNG's) into dst from 0 when it fits, so that the
     * server grows its buffer ({@link #receiveAgain}) when it does not.
     *
     * @return its size either way
     */
    static int copy(MemorySegment message, ByteBuffer dst, Segments segments) {
        long size = message.byteSize();
        if (size > dst.capacity()) {
            return (int) Math.min(size, Integer.MAX_VALUE);
        }
        MemorySegment.copy(message, 0, segments.of(dst.clear()), 0, size);
        return (int) size;
    }

    /** One key for every client: END_ACK counts since the previous END of any client (4.7, 4.8). */
    @Override
    public final Object source() {
        return endpoint;
    }
}
