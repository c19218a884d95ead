package dev.ipclab.peer.pattern;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.frame.StreamAck;
import dev.ipclab.peer.transport.ClientLink;
import dev.ipclab.peer.transport.ReceiveTimeoutException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A stream client over a link (PROTOCOL.md section 11.1): a message of S bytes is the S payload
 * bytes alone, one preallocated buffer stamped in place and handed to the link with one call per
 * message; MARK (announcing size and count) and END are each answered by the server. On a lossy
 * link (udp) MARK and END are sent again every 100 ms until their answer arrives or --io-timeout
 * passes, and a late duplicate answer to an earlier MARK is skipped.
 */
public final class StreamExchange implements OneWay {
    static final long RESEND_NANOS = 100_000_000L;

    private final ClientLink link;
    private final long ioTimeoutNanos;
    private final int messageSize;
    private final ByteBuffer message;
    private final long head;
    private final ByteBuffer mark = Frame.allocate(Frame.HEADER_SIZE + Frame.MARK_PAYLOAD);
    private final OutgoingFrame end;
    private final ByteBuffer markAck;
    private final ByteBuffer endAck;

    StreamExchange(ClientLink link, long seed, int messageSize, long ioTimeoutNanos) {
        this.link = link;
        this.ioTimeoutNanos = ioTimeoutNanos;
        this.messageSize = messageSize;
        this.message = Payload.base(seed, Payload.REQUEST_STREAM, messageSize);
        this.head = Payload.head(seed, Payload.REQUEST_STREAM);
        this.end = new OutgoingFrame(Frame.END, seed, Payload.REQUEST_STREAM, 0);
        this.markAck = Frame.allocate(link.receiveCapacity(Frame.HEADER_SIZE));
        this.endAck = Frame.allocate(link.receiveCapacity(Frame.HEADER_SIZE
                + Frame.STREAM_END_ACK_PAYLOAD));
    }

    /** Over the mechanism's link, connected once; the link is closed if this fails. */
    public static OneWay open(ClientLink link, long seed, int messageSize, long ioTimeoutNanos) {
        try {
            return new StreamExchange(link, seed, messageSize, ioTimeoutNanos);
        } catch (RuntimeException | Error e) {
            Exchange.closeOnError(link, e);
            throw e;
        }
    }

    @Override
    public void data(long sequence) throws IOException {
        Payload.stamp(message, 0, messageSize, head, sequence);
        link.sendMessage(message.clear());
    }

    @Override
    public void start(long sequence, long count) throws PeerException, IOException {
        mark(sequence, count);
    }

    @Override
    public void mark(long sequence, long count) throws PeerException, IOException {
        Frame.writeMark(mark, sequence, messageSize, count);
        exchange(mark.clear(), markAck, Frame.MARK_ACK, sequence, 0);
    }

    @Override
    public StreamAck end(long sequence) throws PeerException, IOException {
        exchange(end.prepare(sequence, 0), endAck, Frame.END_ACK, sequence,
                Frame.STREAM_END_ACK_PAYLOAD);
        return StreamAck.read(endAck, Frame.HEADER_SIZE);
    }

    @Override
    public boolean lossy() {
        return link.lossy();
    }

    /** Sends frame and receives its answer of kind with the given payload length. */
    private void exchange(ByteBuffer frame, ByteBuffer answer, byte kind, long sequence, int length)
            throws PeerException, IOException {
        int size = Frame.HEADER_SIZE + length;
        link.send(frame);
        int received = link.lossy() ? resending(frame, answer, kind, sequence)
                : link.receive(answer, size);
        Exchange.checkSize(kind == Frame.MARK_ACK ? "mark_ack" : "end_ack", received, size);
        Frame.checkReply(answer, kind, sequence, length, 0);
    }

    /**
     * Waits for the answer, sending the frame again every 100 ms, within --io-timeout. A MARK_ACK
     * of another sequence answers an earlier MARK that was sent twice: skipped.
     */
    private int resending(ByteBuffer frame, ByteBuffer answer, byte kind, long sequence)
            throws IOException {
        long deadline = System.nanoTime() + ioTimeoutNanos;
        while (true) {
            int received = link.receiveWithin(answer, RESEND_NANOS);
            if (received >= Frame.HEADER_SIZE && Frame.kind(answer) == Frame.MARK_ACK
                    && (kind != Frame.MARK_ACK || Frame.sequence(answer) != sequence)) {
                continue;
            }
            if (received >= 0) {
                return received;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new ReceiveTimeoutException("no " + (kind == Frame.MARK_ACK ? "MARK_ACK"
                        : "END_ACK") + " within --io-timeout (" + ioTimeoutNanos / 1e9 + " s)");
            }
            link.send(frame.clear());
        }
    }

    @Override
    public void close() throws IOException {
        link.close();
    }
}
