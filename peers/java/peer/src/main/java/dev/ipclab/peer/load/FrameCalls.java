package dev.ipclab.peer.load;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.ExpectedPayload;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.transport.ClientLink;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A load connection over section 2's frames (tcp, uds; sysv-mq and posix-mq, whose REQUEST and
 * END carry the connection's reply address, {@link QueueCalls}): REQUEST and RESPONSE per
 * request, END and END_ACK at the end. Every buffer is made before T0 and the frame is stamped
 * before the wait, so only the send and the receive lie inside the timed exchange.
 */
public final class FrameCalls implements LoadCalls {
    private final ClientLink link;
    private final int requestSize;
    private final int responseSize;
    private final OutgoingFrame request;
    private final OutgoingFrame end;
    private final ByteBuffer response;
    private final ByteBuffer endAck;
    private final ExpectedPayload.Check expected;
    private ByteBuffer frame;
    private int received;

    public FrameCalls(ClientLink link, long seed, int requestSize, int responseSize) {
        this(link, seed, requestSize, responseSize, (short) 0);
    }

    /** @param flags of every REQUEST and END: a queue connection's reply address (11.5.5) */
    public FrameCalls(ClientLink link, long seed, int requestSize, int responseSize,
            short flags) {
        this.link = link;
        this.requestSize = requestSize;
        this.responseSize = responseSize;
        this.request = new OutgoingFrame(Frame.REQUEST, seed, Payload.REQUEST_STREAM, requestSize)
                .flags(flags);
        this.end = new OutgoingFrame(Frame.END, seed, Payload.REQUEST_STREAM, 0).flags(flags);
        this.response = Frame.allocate(link.receiveCapacity(Frame.HEADER_SIZE + responseSize));
        this.endAck = Frame.allocate(link.receiveCapacity(Frame.HEADER_SIZE + Frame.END_ACK_PAYLOAD));
        this.expected = new ExpectedPayload(seed, Payload.RESPONSE_STREAM, responseSize)
                .bind(response, Frame.HEADER_SIZE);
    }

    @Override
    public void prepare(long k) {
        frame = request.prepare(k, responseSize);
    }

    /** The transport's failure stays the cause: {@link Outcome#of(PeerException)} reads it. */
    @Override
    public void exchange(long k) throws PeerException {
        try {
            link.send(frame);
            received = link.receive(response, Frame.HEADER_SIZE + responseSize);
        } catch (IOException e) {
            throw PeerException.io(PeerException.describe(e), e);
        }
    }

    /** Header and payload; a bad header leaves the stream unframed (protocol). */
    @Override
    public PeerException check(long k) {
        try {
            if (received != Frame.HEADER_SIZE + responseSize) {
                throw new PeerException(ErrorKind.PROTOCOL, "response size: expected "
                        + (Frame.HEADER_SIZE + responseSize) + ", received " + received);
            }
            Frame.checkReply(response, Frame.RESPONSE, k, responseSize, requestSize);
        } catch (PeerException e) {
            return e;
        }
        int offset = expected.firstMismatch(k);
        return offset < 0 ? null : PeerException.mismatch("payload mismatch: response sequence "
                + k + " differs from the expected bytes at offset " + offset);
    }

    /** END with the number after this connection's last request, and its END_ACK's count. */
    @Override
    public long end(long next) throws PeerException {
        try {
            link.send(end.prepare(next, 0));
            link.receive(endAck, Frame.HEADER_SIZE + Frame.END_ACK_PAYLOAD);
        } catch (IOException e) {
            String message = "END failed: " + PeerException.describe(e);
            throw Outcome.of(e) == Outcome.TIMEOUT ? PeerException.timeout(message, e)
                    : PeerException.io(message, e);
        }
        Frame.checkReply(endAck, Frame.END_ACK, next, Frame.END_ACK_PAYLOAD, 0);
        return endAck.getLong(Frame.HEADER_SIZE);
    }

    @Override
    public void close() {
        try {
            link.close();
        } catch (IOException e) {
            // The run is over; a failing close loses nothing that was measured.
        }
    }
}
