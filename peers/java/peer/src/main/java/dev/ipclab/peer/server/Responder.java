package dev.ipclab.peer.server;

import dev.ipclab.peer.frame.ExpectedPayload;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The server's answer to every valid frame, shared by every mechanism: REQUEST gets a RESPONSE
 * from a preallocated frame for the last wanted size and is checked afterwards against the
 * expected payload for the last request length; MARK gets MARK_ACK and starts the
 * {@link StreamTally} that the stream's bare messages go into ({@link #message}); END gets
 * END_ACK (the stream's seven figures after a MARK, else the corrupted count). Nothing here
 * allocates while the sizes stay the same, which is the case within one run.
 */
public final class Responder {
    /** Where answers go: the connection, or the datagram's source. */
    interface Reply {
        void send(ByteBuffer frame) throws IOException;
    }

    private final long seed;
    private final boolean flipResponseByte;
    private final StreamTally stream;
    private final ByteBuffer endAck = Frame.allocate(Frame.HEADER_SIZE + Frame.END_ACK_PAYLOAD);
    private final ByteBuffer streamEndAck =
            Frame.allocate(Frame.HEADER_SIZE + Frame.STREAM_END_ACK_PAYLOAD);
    private final ByteBuffer markAck = Frame.allocate(Frame.HEADER_SIZE);
    private final ByteBuffer oneWayEndAck =
            Frame.allocate(Frame.HEADER_SIZE + Frame.ONE_WAY_END_ACK_PAYLOAD);
    private OutgoingFrame response;
    private ExpectedPayload expectedRequest;
    private ExpectedPayload.Check requestCheck;

    long seed() {
        return seed;
    }

    /** --fault flip-response-byte, which the object server (4.6) applies too. */
    boolean flipsResponseByte() {
        return flipResponseByte;
    }

    public Responder(long seed, Fault fault) {
        this.seed = seed;
        this.flipResponseByte = fault == Fault.FLIP_RESPONSE_BYTE;
        this.stream = new StreamTally(seed, fault);
        Frame.writeHeader(endAck, Frame.END_ACK, 0, Frame.END_ACK_PAYLOAD, 0);
        Frame.writeHeader(streamEndAck, Frame.END_ACK, 0, Frame.STREAM_END_ACK_PAYLOAD, 0);
        Frame.writeHeader(markAck, Frame.MARK_ACK, 0, 0, 0);
        Frame.writeHeader(oneWayEndAck, Frame.END_ACK, 0, Frame.ONE_WAY_END_ACK_PAYLOAD, 0);
    }

    /**
     * Answers the valid frame at offset {@code at} of buf.
     *
     * @param corrupted END only: the corrupted-request count END_ACK reports
     * @param received END only: the requests received, which a one-way END_ACK reports
     * @return 1 if it was a REQUEST whose payload was corrupted, else 0
     */
    int answer(ByteBuffer buf, int at, Reply reply, long corrupted, long received)
            throws IOException {
        long sequence = Frame.sequence(buf, at);
        int length = (int) Frame.length(buf, at);
        switch (Frame.kind(buf, at)) {
            case Frame.MARK -> {
                // The caller has checked the size against its limit (Frame.markProblem).
                stream.mark(sequence, (int) Frame.markSize(buf, at));
                reply.send(stamped(markAck, sequence));
                return 0;
            }
            case Frame.END -> {
                reply.send(endAck(Frame.flags(buf, at) == Frame.NO_REPLY, sequence, corrupted,
                        received));
                return 0;
            }
            default -> {
                if (Frame.flags(buf, at) == Frame.NO_REPLY) {
                    // one-way (section 11.2): no RESPONSE; checked and counted all the same.
                    return intact(buf, at, length, sequence) ? 0 : 1;
                }
                reply.send(response(sequence, (int) Frame.wanted(buf, at), length));
                sent();
                // Checked only now, after the response has left: the check costs the round trip nothing.
                return intact(buf, at, length, sequence) ? 0 : 1;
            }
        }
    }

    /** One bare stream message of the MARK's size at buf[at, at + length) (section 11.1). */
    void message(ByteBuffer buf, int at, int length) {
        stream.message(buf, at, length);
    }

    /** udp: a datagram of another size than the stream's messages, counted as a gap. */
    void streamGap() {
        stream.gap();
    }

    /** The size of the messages the last MARK announced. */
    int messageSize() {
        return stream.messageSize();
    }

    /** END's answer: the stream's seven figures after a MARK, one-way's two u64, else one. */
    private ByteBuffer endAck(boolean oneWay, long sequence, long corrupted, long received)
            throws IOException {
        if (stream.marked()) {
            stream.end().write(streamEndAck, Frame.HEADER_SIZE);
            return stamped(streamEndAck, sequence);
        }
        if (oneWay) {
            oneWayEndAck.putLong(Frame.HEADER_SIZE, corrupted);
            oneWayEndAck.putLong(Frame.HEADER_SIZE + 8, received);
            return stamped(oneWayEndAck, sequence);
        }
        endAck.putLong(Frame.HEADER_SIZE, corrupted);
        return stamped(endAck, sequence);
    }

    /** The RESPONSE to send for a request; call {@link #sent()} once it is written. */
    private ByteBuffer response(long sequence, int wanted, int requestLength) {
        if (response == null || response.length() != wanted) {
            response = null; // lets a large previous frame be collected before the next one
            response = new OutgoingFrame(Frame.RESPONSE, seed, Payload.RESPONSE_STREAM, wanted);
        }
        ByteBuffer frame = response.prepare(sequence, requestLength);
        if (flipResponseByte) {
            response.flipLastByte();
        }
        return frame;
    }

    /** Undoes the fault after sending, so the cached base stays the true base. */
    private void sent() {
        if (flipResponseByte) {
            response.flipLastByte();
        }
    }

    /** Whether the request payload at {@code at + 24} of buf is exactly the one for this sequence. */
    private boolean intact(ByteBuffer buf, int at, int length, long sequence) {
        if (expectedRequest == null || expectedRequest.length() != length) {
            expectedRequest = null;
            requestCheck = null;
            expectedRequest = new ExpectedPayload(seed, Payload.REQUEST_STREAM, length);
        }
        int offset = at + Frame.HEADER_SIZE;
        if (requestCheck == null || requestCheck.buffer() != buf || requestCheck.offset() != offset) {
            requestCheck = expectedRequest.bind(buf, offset);
        }
        return requestCheck.firstMismatch(sequence) < 0;
    }

    private static ByteBuffer stamped(ByteBuffer frame, long sequence) {
        frame.putLong(Frame.OFF_SEQUENCE, sequence);
        return frame.clear();
    }
}
