package dev.ipclab.peer;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Reads request frames from a stream into one reusable buffer. Every read asks for as much as the
 * buffer holds, so a frame usually arrives in one call; the buffer only grows to a length that
 * has passed the header checks, so a hostile header cannot make the server allocate.
 */
final class FrameReader {
    enum Status { FRAME, CLOSED, REJECTED }

    static final int INITIAL_CAPACITY = Frame.HEADER_SIZE + 64 * 1024;

    private ByteBuffer buf = Frame.allocate(INITIAL_CAPACITY);
    /** Bytes received into buf, from offset 0; may run past the current frame. */
    private int filled;
    private int frameSize;
    private String rejection;

    /** Forgets any state of a previous connection; keeps the buffer. */
    void reset() {
        filled = 0;
        frameSize = 0;
        rejection = null;
    }

    /** Reads the next frame: its header is at offset 0 of {@link #frame()}, its payload at 24. */
    Status next(StreamConnection connection) throws IOException {
        if (!fill(connection, Frame.HEADER_SIZE)) {
            return filled == 0 ? Status.CLOSED : reject("truncated header");
        }
        String problem = Frame.requestProblem(buf);
        if (problem != null) {
            return reject(problem);
        }
        int size = Frame.HEADER_SIZE + (int) Frame.length(buf);
        ensureCapacity(size);
        if (!fill(connection, size)) {
            return reject("truncated payload");
        }
        frameSize = size;
        return Status.FRAME;
    }

    ByteBuffer frame() {
        return buf;
    }

    String rejection() {
        return rejection;
    }

    int capacity() {
        return buf.capacity();
    }

    /** Drops the current frame, keeping any bytes of the next one a pipelining client sent. */
    void consume() {
        if (filled == frameSize) {
            filled = 0;
        } else {
            buf.limit(filled).position(frameSize);
            buf.compact();
            filled -= frameSize;
        }
        frameSize = 0;
    }

    /** Reads until at least `wanted` bytes are buffered; false at end of stream before that. */
    private boolean fill(StreamConnection connection, int wanted) throws IOException {
        while (filled < wanted) {
            buf.limit(buf.capacity()).position(filled);
            int n = connection.read(buf);
            if (n < 0) {
                return false;
            }
            filled += n;
        }
        return true;
    }

    private void ensureCapacity(int size) {
        if (size > buf.capacity()) {
            ByteBuffer bigger = Frame.allocate(size);
            bigger.put(0, buf, 0, filled);
            buf = bigger;
        }
    }

    private Status reject(String reason) {
        rejection = reason;
        return Status.REJECTED;
    }
}
