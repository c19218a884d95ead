package dev.ipclab.peer.frame;

import java.nio.ByteBuffer;

/**
 * One preallocated frame [24-byte header | payload base] that is sent again and again: each send
 * patches only the sequence, the wanted field and the 8-byte stamp in place, so that the frame
 * goes out with one write call and nothing is allocated or generated on the hot path.
 */
public final class OutgoingFrame {
    private final ByteBuffer buf;
    private final int length;
    private final long head;

    public OutgoingFrame(byte kind, long seed, int stream, int length) {
        this.buf = Frame.allocate(Frame.HEADER_SIZE + length);
        this.length = length;
        this.head = Payload.head(seed, stream);
        Frame.writeHeader(buf, kind, 0, length, 0);
        Payload.fillBase(buf, Frame.HEADER_SIZE, seed, stream, length);
    }

    /** Marks every send of this frame NO_REPLY (a one-way short, section 11.2). */
    public OutgoingFrame noReply() {
        return flags(Frame.NO_REPLY);
    }

    /** Marks every send of this frame with these flags (a queue's reply address, 11.5.5). */
    public OutgoingFrame flags(short flags) {
        Frame.setFlags(buf, flags);
        return this;
    }

    public int length() {
        return length;
    }

    /** @return the whole frame, position 0, stamped for this sequence */
    public ByteBuffer prepare(long sequence, int wanted) {
        buf.putLong(Frame.OFF_SEQUENCE, sequence);
        buf.putInt(Frame.OFF_WANTED, wanted);
        Payload.stamp(buf, Frame.HEADER_SIZE, length, head, sequence);
        return buf.clear();
    }

    /** Fault injection: XORs the last payload byte with 0x01; a second call undoes it. */
    public void flipLastByte() {
        if (length > 0) {
            int last = Frame.HEADER_SIZE + length - 1;
            buf.put(last, (byte) (buf.get(last) ^ 0x01));
        }
    }
}
