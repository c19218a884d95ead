package dev.ipclab.peer.server;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.transport.StreamConnection;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Reads client frames and a stream's bare messages (section 11.1) from a stream into one reusable
 * buffer. Every read asks for as much as the buffer holds, so a frame usually arrives in one call
 * and a stream of small messages arrives many at a time; they are then handled where they lie
 * ({@link #start()}), and only a partial one at the end of the buffer is moved to its front. The
 * buffer grows only when it is full of the frame's bytes, to at most twice that, and never past
 * a length that has passed the header checks (a frame) or the MARK's (a message): memory follows
 * the bytes that arrived, so a header claiming 128 MiB and then silence costs nothing.
 *
 * <p>With a read size N ({@code --read-size}, section 11.1), each read of a stream's messages
 * asks for at most min(N, the bytes still due of the messages the MARK announced), as the blog's
 * servers read 1 KiB per recv; control frames are read as above.
 */
final class FrameReader {
    /** PARTIAL: a non-blocking connection has no more bytes now; call next again when it has. */
    enum Status { FRAME, CLOSED, REJECTED, PARTIAL }

    /** What a fill came to: enough bytes, end of stream, or (non-blocking) none for now. */
    private enum Fill { DONE, EOF, WAIT }

    static final int INITIAL_CAPACITY = Frame.HEADER_SIZE + 64 * 1024;

    /** Section 2's exchange only (a load server, 11.5.1): MARK and NO_REPLY are rejected. */
    private final boolean exchangeOnly;
    /** The connection is non-blocking: a read of 0 bytes means "nothing yet", not "again". */
    private final boolean nonBlocking;
    /** --read-size: the most one read of stream messages asks for; 0: as much as fits. */
    private final int readSize;
    /** With a read size: bytes of the announced messages not yet read off the connection. */
    private long due;

    private ByteBuffer buf = Frame.allocate(INITIAL_CAPACITY);
    /** Where the current frame starts in buf. */
    private int start;
    /** Bytes received into buf, from offset 0; may run past the current frame. */
    private int filled;
    private int frameSize;
    private String rejection;

    /** Every frame kind a stream server answers, read from a blocking connection. */
    FrameReader() {
        this(false, false);
    }

    /** Every frame kind, blocking, each read of stream messages at most readSize (0: any). */
    FrameReader(int readSize) {
        this(false, false, readSize);
    }

    FrameReader(boolean exchangeOnly, boolean nonBlocking) {
        this(exchangeOnly, nonBlocking, 0);
    }

    private FrameReader(boolean exchangeOnly, boolean nonBlocking, int readSize) {
        this.exchangeOnly = exchangeOnly;
        this.nonBlocking = nonBlocking;
        this.readSize = readSize;
    }

    /** Forgets any state of a previous connection; keeps the buffer. */
    void reset() {
        start = 0;
        filled = 0;
        frameSize = 0;
        rejection = null;
        due = 0;
    }

    /**
     * The MARK just answered announced count messages of size bytes: with a read size, the
     * reads until they are all in ask for no byte beyond them (those already read count).
     */
    void expectMessages(long count, int size) {
        if (readSize == 0) {
            return;
        }
        long total = count > Long.MAX_VALUE / size ? Long.MAX_VALUE : count * size;
        due = Math.max(0, total - (filled - start));
    }

    /** Reads the next frame: its header is at {@link #start()} of {@link #frame()}, its payload 24 later. */
    Status next(StreamConnection connection) throws IOException {
        Fill header = fill(connection, Frame.HEADER_SIZE);
        if (header != Fill.DONE) {
            return header == Fill.WAIT ? Status.PARTIAL
                    : filled == start ? Status.CLOSED : reject("truncated header");
        }
        // Checked again after a PARTIAL: cheap, and the buffer stays the only state.
        String problem = Frame.requestProblem(buf, start, exchangeOnly);
        if (problem != null) {
            return reject(problem);
        }
        int size = Frame.HEADER_SIZE + (int) Frame.length(buf, start);
        Fill payload = fill(connection, size);
        if (payload != Fill.DONE) {
            return payload == Fill.WAIT ? Status.PARTIAL : reject("truncated payload");
        }
        frameSize = size;
        return Status.FRAME;
    }

    /**
     * Reads the next bare message of {@code size} bytes (a MARK announced it, so the size has
     * passed its checks): it is at {@link #start()} of {@link #frame()}.
     *
     * @return false at end of stream before the whole message
     */
    boolean nextMessage(StreamConnection connection, int size) throws IOException {
        if (fill(connection, size) != Fill.DONE) {
            return false;
        }
        frameSize = size;
        return true;
    }

    ByteBuffer frame() {
        return buf;
    }

    /** The current frame's offset in {@link #frame()}. */
    int start() {
        return start;
    }

    /** The bytes received and not consumed yet, from the current frame's start (a view). */
    ByteBuffer unread() {
        return buf.duplicate().limit(filled).position(start);
    }

    String rejection() {
        return rejection;
    }

    int capacity() {
        return buf.capacity();
    }

    /** Drops the current frame or message, keeping any bytes of the next ones a client sent. */
    void consume() {
        start += frameSize;
        if (start == filled) {
            start = 0;
            filled = 0;
        }
        frameSize = 0;
    }

    /**
     * Reads until the frame at start has at least {@code wanted} bytes; false at end of stream
     * before that. A frame that would run past the buffer's end is first moved to its front; the
     * buffer grows only once it is full of the frame's received bytes.
     */
    private Fill fill(StreamConnection connection, int wanted) throws IOException {
        if (start + wanted > buf.capacity() && start > 0) {
            compact();
        }
        while (filled - start < wanted) {
            if (filled == buf.capacity()) {
                grow(wanted);  // start is 0 here: compact() ran if the frame did not fit
            }
            buf.limit(readLimit()).position(filled);
            int n = connection.read(buf);
            if (n < 0) {
                return Fill.EOF;
            }
            if (n == 0 && nonBlocking) {
                return Fill.WAIT;
            }
            filled += n;
            due = Math.max(0, due - n);
        }
        return Fill.DONE;
    }

    /** Where the next read must stop: the buffer's end, or min(read size, due) bytes on. */
    private int readLimit() {
        if (due == 0) {
            return buf.capacity();
        }
        return (int) Math.min(buf.capacity(), filled + Math.min(readSize, due));
    }

    private void compact() {
        int held = filled - start;
        buf.limit(filled).position(start);
        buf.compact();
        start = 0;
        filled = held;
    }

    /** Twice the room, or what the frame still wants if less: never ahead of what came. */
    private void grow(int wanted) {
        ByteBuffer bigger = Frame.allocate((int) Math.min(wanted, 2L * buf.capacity()));
        bigger.put(0, buf, 0, filled);
        buf = bigger;
    }

    private Status reject(String reason) {
        rejection = reason;
        return Status.REJECTED;
    }
}
