package dev.ipclab.peer.pattern;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.ExpectedPayload;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.transport.ChannelConnection;
import dev.ipclab.peer.transport.ClientLink;
import dev.ipclab.peer.transport.Dial;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A client of section 2's frames: over one link for the whole run (rr), or over a new connection
 * per round trip (short, section 11.2), with or without a RESPONSE (one-way: REQUEST and END
 * flagged NO_REPLY, END_ACK with the count of requests received). Every buffer is made in the
 * constructor; the timed region is only: clock, (connect,) one send, the receive of the whole
 * response (not one-way), (close,) clock. Stamping and a short connection's socket (and bind)
 * come before it, every check after it.
 */
public final class Exchange implements Session {
    private final ClientLink link;
    private final Dial dial;
    private final boolean oneWay;
    private final int requestSize;
    private final int responseSize;
    private final int responseFrameSize;
    private final OutgoingFrame request;
    private final OutgoingFrame end;
    private final ByteBuffer response;
    private final ByteBuffer endAck;
    private final ExpectedPayload.Check expectedResponse;

    /**
     * @param link the one link (rr), or null with a dialer (short)
     * @param oneWay short only: no RESPONSE (responseSize 0)
     */
    private Exchange(ClientLink link, Dial dial, boolean oneWay, long seed, int requestSize,
            int responseSize) {
        this.link = link;
        this.dial = dial;
        this.oneWay = oneWay;
        this.requestSize = requestSize;
        this.responseSize = responseSize;
        this.responseFrameSize = Frame.HEADER_SIZE + responseSize;
        this.request = new OutgoingFrame(Frame.REQUEST, seed, Payload.REQUEST_STREAM, requestSize);
        this.end = new OutgoingFrame(Frame.END, seed, Payload.REQUEST_STREAM, 0);
        if (oneWay) {
            request.noReply();
            end.noReply();
        }
        int endAckSize = Frame.HEADER_SIZE + endAckPayload();
        // short mechanisms are all streams: a frame needs exactly its own size.
        this.response = Frame.allocate(link == null ? responseFrameSize
                : link.receiveCapacity(responseFrameSize));
        this.endAck = Frame.allocate(link == null ? endAckSize : link.receiveCapacity(endAckSize));
        this.expectedResponse = new ExpectedPayload(seed, Payload.RESPONSE_STREAM, responseSize)
                .bind(response, Frame.HEADER_SIZE);
    }

    /** rr: over the mechanism's link, connected once; the link is closed if this fails. */
    public static Exchange open(ClientLink link, long seed, int requestSize, int responseSize) {
        try {
            return new Exchange(link, null, false, seed, requestSize, responseSize);
        } catch (RuntimeException | Error e) {
            closeOnError(link, e);
            throw e;
        }
    }

    /**
     * short: nothing is connected yet; each round trip dials.
     *
     * @param oneWay --one-way: each connection carries one REQUEST and no RESPONSE
     */
    public static Exchange dialing(Dial dial, long seed, int requestSize, int responseSize,
            boolean oneWay) {
        try {
            return new Exchange(null, dial, oneWay, seed, requestSize, responseSize);
        } catch (RuntimeException | Error e) {
            closeOnError(dial, e);
            throw e;
        }
    }

    static void closeOnError(Closeable resource, Throwable failure) {
        try {
            resource.close();
        } catch (IOException suppressed) {
            failure.addSuppressed(suppressed);
        }
    }

    /** @return the round trip's time in nanoseconds, once its response has passed every check */
    @Override
    public long roundTrip(long sequence) throws PeerException, IOException {
        ByteBuffer frame = request.prepare(sequence, responseSize);
        long start;
        int received;
        long stop;
        if (dial == null) {
            start = System.nanoTime();
            link.send(frame);
            received = link.receive(response, responseFrameSize);
            stop = System.nanoTime();
        } else if (oneWay) {
            dial.prepare();
            start = System.nanoTime();
            try (ClientLink connection = dial.dial()) {
                connection.send(frame);
            }
            return System.nanoTime() - start;
        } else {
            dial.prepare();
            start = System.nanoTime();
            try (ClientLink connection = dial.dial()) {
                connection.send(frame);
                received = connection.receive(response, responseFrameSize);
            }
            stop = System.nanoTime();
        }
        checkResponse(sequence, received);
        return stop - start;
    }

    private void checkResponse(long sequence, int received) throws PeerException {
        checkSize("response", received, responseFrameSize);
        Frame.checkReply(response, Frame.RESPONSE, sequence, responseSize, requestSize);
        int offset = expectedResponse.firstMismatch(sequence);
        if (offset >= 0) {
            throw new PeerException(ErrorKind.PAYLOAD_MISMATCH, "payload mismatch: response "
                    + "sequence " + sequence + " differs from the expected bytes at offset " + offset);
        }
    }

    /**
     * END and its END_ACK, which carries how many request payloads the server found corrupted
     * (short: over one more connection of its own).
     */
    @Override
    public void finish(long sequence) throws PeerException, IOException {
        if (dial == null) {
            finishOn(link, sequence);
        } else {
            try (ClientLink connection = dial.dial()) {
                finishOn(connection, sequence);
            }
        }
    }

    /** One-way: END's sequence is the number of REQUESTs sent (warm-up + iterations). */
    private void finishOn(ClientLink connection, long sequence) throws PeerException, IOException {
        connection.send(end.prepare(sequence, 0));
        int ackSize = Frame.HEADER_SIZE + endAckPayload();
        checkSize("end_ack", connection.receive(endAck, ackSize), ackSize);
        Frame.checkReply(endAck, Frame.END_ACK, sequence, endAckPayload(), 0);
        long corrupted = endAck.getLong(Frame.HEADER_SIZE);
        if (corrupted != 0) {
            throw new PeerException(ErrorKind.PAYLOAD_MISMATCH, "payload mismatch: server received "
                    + Long.toUnsignedString(corrupted) + " corrupted request payloads");
        }
        long received = oneWay ? endAck.getLong(Frame.HEADER_SIZE + 8) : sequence;
        if (Long.compareUnsigned(received, sequence) < 0) {
            throw new PeerException(ErrorKind.PROTOCOL, "one-way: the server received "
                    + Long.toUnsignedString(received) + " requests, the client sent " + sequence);
        }
    }

    private int endAckPayload() {
        return oneWay ? Frame.ONE_WAY_END_ACK_PAYLOAD : Frame.END_ACK_PAYLOAD;
    }

    /** Only a datagram can have the wrong size; a stream read always takes exactly the frame. */
    static void checkSize(String what, int received, int expected) throws PeerException {
        if (received != expected) {
            throw new PeerException(ErrorKind.PROTOCOL, what + " datagram size: expected "
                    + expected + ", received " + received);
        }
    }

    @Override
    public void close() throws IOException {
        ChannelConnection.closeAll(link != null ? link : dial);
    }
}
