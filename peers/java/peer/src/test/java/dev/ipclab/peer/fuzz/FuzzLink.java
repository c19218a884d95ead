package dev.ipclab.peer.fuzz;

import dev.ipclab.peer.transport.StreamConnection;
import java.nio.ByteBuffer;

/**
 * A fuzz input as what a client sends: a {@link StreamConnection} over bytes in memory, handed
 * out in pieces of a size the input chose, so that one input also decides where the transport
 * splits frames. With stalls every other read returns 0 bytes, as a non-blocking socket or a
 * message mechanism's empty message does. Writes are counted and dropped. Shared by the fuzz
 * targets of the peer: one way of reading an input, one corpus format.
 */
public final class FuzzLink implements StreamConnection {
    private final byte[] data;
    private final int piece;
    private final boolean stalls;
    private int given;
    private boolean stalled;
    private long written;

    private FuzzLink(byte[] data, int from, int piece, boolean stalls) {
        this.data = data;
        this.given = from;
        this.piece = piece;
        this.stalls = stalls;
    }

    /**
     * The input after its first byte, in pieces of 1 + 67 * (bits 2..7 of that byte): 1 byte at a
     * time up to several frames per read.
     *
     * @param stalls every other read returns 0 bytes
     */
    public static FuzzLink of(byte[] input, boolean stalls) {
        return new FuzzLink(input, 1, 1 + 67 * (Byte.toUnsignedInt(input[0]) >>> 2), stalls);
    }

    /** Bits 0 and 1 of the input's first byte: what the pieces leave to the target to choose. */
    public static int mode(byte[] input) {
        return input[0] & 3;
    }

    @Override
    public int read(ByteBuffer dst) {
        if (given == data.length) {
            return -1;
        }
        stalled = stalls && !stalled;
        if (stalled || !dst.hasRemaining()) {
            return 0;
        }
        int n = Math.min(Math.min(dst.remaining(), piece), data.length - given);
        dst.put(data, given, n);
        given += n;
        return n;
    }

    @Override
    public void write(ByteBuffer src) {
        written += src.remaining();
        src.position(src.limit());
    }

    /** Bytes handed out so far (the first, the mode byte, not among them). */
    public int given() {
        return given - 1;
    }

    public long written() {
        return written;
    }

    @Override
    public void close() {}
}
