package dev.ipclab.peer.server;

import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.ResourceUsage;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.StreamAck;
import dev.ipclab.peer.frame.StreamChecksum;
import java.nio.ByteBuffer;

/**
 * The server's side of a stream (PROTOCOL.md section 11.1 step 3): counts each message, checks
 * its sequence follows the previous one (a difference is a gap, and counting goes on from the
 * received sequence), adds its bytes to the checksum. A bare message carries its sequence only
 * in its stamp: the first min(8, S) bytes XOR the base's, so below 8 bytes it is known modulo
 * 2^(8S) and compared modulo the same. MARK resets the tally and takes the process's CPU figures;
 * END reports them as a difference. Applies the stream faults to the count and the sum, never to
 * the received bytes (a gRPC message is read-only).
 */
public final class StreamTally {
    private final Fault fault;
    /** The first eight base bytes of the request stream: what each stamp was XOR-ed onto. */
    private final long head;
    private long received;
    /** Messages since MARK, dropped ones too: where the faults strike. */
    private long arrived;
    private long gaps;
    private long checksum;
    private long next;
    /** The bits of a sequence a message of the current size carries (all for S of 8 or more). */
    private long mask = -1L;
    private int messageSize;
    private long markSequence;
    private boolean marked;
    private ResourceUsage atMark;

    public StreamTally(long seed, Fault fault) {
        this.fault = fault;
        this.head = Payload.head(seed, Payload.REQUEST_STREAM);
    }

    /**
     * MARK: the messages that follow have {@code size} bytes and start after sequence. A MARK
     * repeated (udp resends it) with nothing between keeps the tally and CPU figures it started.
     */
    public void mark(long sequence, int size) throws LinuxIpcException {
        if (marked && sequence == markSequence && arrived == 0 && gaps == 0) {
            return;
        }
        reset(sequence, size, size >= 8 ? -1L : (1L << (8 * size)) - 1);
    }

    /** A gRPC streaming call's start: its chunks carry whole sequences, the first one expected. */
    public void startCall() throws LinuxIpcException {
        reset(-1, 0, -1L);
    }

    private void reset(long sequence, int size, long sequenceMask) throws LinuxIpcException {
        received = 0;
        arrived = 0;
        gaps = 0;
        checksum = 0;
        next = sequence + 1;
        messageSize = size;
        mask = sequenceMask;
        markSequence = sequence;
        marked = true;
        atMark = ResourceUsage.self();
    }

    /** The message size the last MARK announced (0 before any). */
    public int messageSize() {
        return messageSize;
    }

    /** The sequence the next message should have (gRPC: its first chunk's, at the call's start). */
    public void expect(long sequence) {
        next = sequence;
    }

    /** One bare message buf[offset, offset + length) (never written to): its stamp is its sequence. */
    public void message(ByteBuffer buf, int offset, int length) {
        message(buf, offset, length, stampOf(buf, offset, length));
    }

    /** udp: a datagram of another size than the MARK's is a gap, neither counted nor summed. */
    public void gap() {
        gaps++;
    }

    /** One message whose sequence travels beside it (gRPC's chunk field). */
    public void message(ByteBuffer buf, int offset, int length, long sequence) {
        long sum = StreamChecksum.of(buf, offset, length);
        if (marked && ++arrived == 2 && fault != Fault.NONE) {
            if (fault == Fault.DROP_STREAM_MESSAGE) {
                return;
            }
            if (fault == Fault.FLIP_STREAM_BYTE && length > 0) {
                sum += flippedLastByte(buf, offset + length - 1, length);
            }
        }
        if (((sequence ^ next) & mask) != 0) {
            gaps++;
        }
        next = sequence + 1;
        received++;
        checksum += sum;
    }

    /** The sequence bits a message's first min(8, length) bytes carry. */
    private long stampOf(ByteBuffer buf, int offset, int length) {
        if (length >= 8) {
            return buf.getLong(offset) ^ head;
        }
        long stamp = 0;
        for (int j = length - 1; j >= 0; j--) {
            stamp = (stamp << 8) | (buf.get(offset + j) & 0xFF);
        }
        return (stamp ^ head) & mask;
    }

    /**
     * What flipping the low bit of the last payload byte does to the word sum: that byte is byte
     * (length - 1) mod 8 of the last word, so the word moves by 2^(8 * that) up or down.
     */
    private static long flippedLastByte(ByteBuffer buf, int last, int length) {
        long bit = 1L << (8 * ((length - 1) & 7));
        return (buf.get(last) & 1) == 0 ? bit : -bit;
    }

    /** Whether a MARK has come since the last END: END then answers with the stream's figures. */
    public boolean marked() {
        return marked;
    }

    /** END: the figures since MARK; the next END is a plain one again. */
    public StreamAck end() throws LinuxIpcException {
        marked = false;
        return new StreamAck(received, gaps, checksum, ResourceUsage.self().since(atMark));
    }
}
