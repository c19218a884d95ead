package dev.ipclab.peer.transport;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The stream flavour of a transport: one connected byte stream (a socket, or a read end and a
 * write end of two pipes or FIFOs). Frames may arrive in any number of pieces.
 */
public interface StreamConnection extends Closeable {
    /** One read call into dst; returns the bytes read, or -1 at end of stream. */
    int read(ByteBuffer dst) throws IOException;

    /** Writes all of src, normally in one write call. */
    void write(ByteBuffer src) throws IOException;

    /**
     * Section 11.1: whether the next units to arrive are a stream's bare messages of
     * {@code size} bytes (0: frames again). Only a transport that sees unit boundaries checks
     * them (a file per frame or message); a byte stream ignores it.
     */
    default void expectMessages(int size) {}
}
