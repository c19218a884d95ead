package dev.ipclab.peer;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A client of section 2's frames over one link. Every buffer is made in the constructor; the
 * timed region is only: clock, one send, the receive of the whole response, clock. Stamping
 * comes before it and every check after it.
 */
final class Exchange implements Session {
    private final ClientLink link;
    private final int requestSize;
    private final int responseSize;
    private final int responseFrameSize;
    private final OutgoingFrame request;
    private final OutgoingFrame end;
    private final ByteBuffer response;
    private final ByteBuffer endAck;
    private final ExpectedPayload.Check expectedResponse;

    Exchange(ClientLink link, long seed, int requestSize, int responseSize) {
        this.link = link;
        this.requestSize = requestSize;
        this.responseSize = responseSize;
        this.responseFrameSize = Frame.HEADER_SIZE + responseSize;
        this.request = new OutgoingFrame(Frame.REQUEST, seed, Payload.REQUEST_STREAM, requestSize);
        this.end = new OutgoingFrame(Frame.END, seed, Payload.REQUEST_STREAM, 0);
        this.response = Frame.allocate(link.receiveCapacity(responseFrameSize));
        this.endAck = Frame.allocate(link.receiveCapacity(Frame.HEADER_SIZE + Frame.END_ACK_PAYLOAD));
        this.expectedResponse = new ExpectedPayload(seed, Payload.RESPONSE_STREAM, responseSize)
                .bind(response, Frame.HEADER_SIZE);
    }

    /** Connects the mechanism's link; a failure to connect is an io error naming the endpoint. */
    static Exchange open(Mechanism.Connect connect, DriveOptions options) throws PeerException {
        ClientLink link;
        try {
            link = connect.connect(options.endpoint(), options.settings());
        } catch (IOException e) {
            throw PeerException.io("cannot connect to " + options.endpoint() + ": "
                    + PeerException.describe(e), e);
        }
        try {
            return new Exchange(link, options.seed(), options.requestSize(), options.responseSize());
        } catch (RuntimeException | Error e) {
            try {
                link.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** @return the round trip's time in nanoseconds, once its response has passed every check */
    @Override
    public long roundTrip(long sequence) throws PeerException, IOException {
        ByteBuffer frame = request.prepare(sequence, responseSize);
        long start = System.nanoTime();
        link.send(frame);
        int received = link.receive(response, responseFrameSize);
        long stop = System.nanoTime();
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

    /** END and its END_ACK, which carries how many request payloads the server found corrupted. */
    @Override
    public void finish(long sequence) throws PeerException, IOException {
        link.send(end.prepare(sequence, 0));
        int ackSize = Frame.HEADER_SIZE + Frame.END_ACK_PAYLOAD;
        checkSize("end_ack", link.receive(endAck, ackSize), ackSize);
        Frame.checkReply(endAck, Frame.END_ACK, sequence, Frame.END_ACK_PAYLOAD, 0);
        long corrupted = endAck.getLong(Frame.HEADER_SIZE);
        if (corrupted != 0) {
            throw new PeerException(ErrorKind.PAYLOAD_MISMATCH, "payload mismatch: server received "
                    + Long.toUnsignedString(corrupted) + " corrupted request payloads");
        }
    }

    /** Only a datagram can have the wrong size; a stream read always takes exactly the frame. */
    private static void checkSize(String what, int received, int expected) throws PeerException {
        if (received != expected) {
            throw new PeerException(ErrorKind.PROTOCOL, what + " datagram size: expected "
                    + expected + ", received " + received);
        }
    }

    @Override
    public void close() throws IOException {
        link.close();
    }
}
