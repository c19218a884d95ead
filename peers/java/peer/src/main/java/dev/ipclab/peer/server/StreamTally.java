package dev.ipclab.peer.server;

import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.ResourceUsage;
import dev.ipclab.peer.frame.StreamAck;
import dev.ipclab.peer.frame.StreamChecksum;
import java.nio.ByteBuffer;

/**
 * The server's side of a stream (PROTOCOL.md section 11.1 step 3): counts each DATA frame,
 * checks its sequence follows the previous one (a difference is a gap, and counting goes on from
 * the received sequence), adds its payload to the checksum. MARK resets it and takes the
 * process's CPU figures; END reports them as a difference. Applies the stream faults to the
 * count and the sum, never to the received bytes (a gRPC message is read-only).
 */
public final class StreamTally {
    private final Fault fault;
    private long received;
    /** DATA frames since MARK, dropped ones too: where the faults strike. */
    private long arrived;
    private long gaps;
    private long checksum;
    private long next;
    private boolean marked;
    private ResourceUsage atMark;

    public StreamTally(Fault fault) {
        this.fault = fault;
    }

    /** MARK: the measured stream starts after sequence. */
    public void mark(long sequence) throws LinuxIpcException {
        received = 0;
        arrived = 0;
        gaps = 0;
        checksum = 0;
        next = sequence + 1;
        marked = true;
        atMark = ResourceUsage.self();
    }

    /** The sequence the next message should have (gRPC: its first chunk's, at the call's start). */
    public void expect(long sequence) {
        next = sequence;
    }

    /** One DATA frame whose payload is buf[offset, offset + length) (never written to). */
    public void data(ByteBuffer buf, int offset, int length, long sequence) {
        long sum = StreamChecksum.of(buf, offset, length);
        if (marked && ++arrived == 2 && fault != Fault.NONE) {
            if (fault == Fault.DROP_STREAM_MESSAGE) {
                return;
            }
            if (fault == Fault.FLIP_STREAM_BYTE && length > 0) {
                sum += flippedLastByte(buf, offset + length - 1, length);
            }
        }
        if (sequence != next) {
            gaps++;
        }
        next = sequence + 1;
        received++;
        checksum += sum;
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
