package dev.ipclab.peer;

import java.nio.ByteBuffer;

/**
 * The server's frames and checks, shared by every mechanism: a preallocated RESPONSE frame for
 * the last wanted size, the expected request payload for the last request length, and END_ACK.
 * Nothing here allocates while the sizes stay the same, which is the case within one run.
 */
final class Responder {
    private final long seed;
    private final boolean flipResponseByte;
    private final ByteBuffer endAck = Frame.allocate(Frame.HEADER_SIZE + Frame.END_ACK_PAYLOAD);
    private OutgoingFrame response;
    private ExpectedPayload expectedRequest;
    private ExpectedPayload.Check requestCheck;

    Responder(long seed, boolean flipResponseByte) {
        this.seed = seed;
        this.flipResponseByte = flipResponseByte;
        Frame.writeHeader(endAck, Frame.END_ACK, 0, Frame.END_ACK_PAYLOAD, 0);
    }

    /** The RESPONSE to send for a request; call {@link #sent()} once it is written. */
    ByteBuffer response(long sequence, int wanted, int requestLength) {
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
    void sent() {
        if (flipResponseByte) {
            response.flipLastByte();
        }
    }

    /**
     * Checks a request payload that sits at offset 24 of buf, after its response has gone out.
     *
     * @return true if the payload is exactly the one for this sequence
     */
    boolean intact(ByteBuffer buf, int length, long sequence) {
        if (expectedRequest == null || expectedRequest.length() != length) {
            expectedRequest = null;
            requestCheck = null;
            expectedRequest = new ExpectedPayload(seed, Payload.REQUEST_STREAM, length);
        }
        if (requestCheck == null || requestCheck.buffer() != buf) {
            requestCheck = expectedRequest.bind(buf, Frame.HEADER_SIZE);
        }
        return requestCheck.firstMismatch(sequence) < 0;
    }

    ByteBuffer endAck(long sequence, long corrupted) {
        endAck.putLong(Frame.OFF_SEQUENCE, sequence);
        endAck.putLong(Frame.HEADER_SIZE, corrupted);
        return endAck.clear();
    }
}
