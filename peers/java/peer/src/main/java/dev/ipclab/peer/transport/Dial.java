package dev.ipclab.peer.transport;

import java.io.Closeable;
import java.io.IOException;

/**
 * short (PROTOCOL.md section 11.2): how a round trip gets its own connection; closing the link
 * ends it.
 */
public interface Dial extends Closeable {
    ClientLink dial() throws IOException;

    /** Releases what the dialer keeps between connections (native buffers); default none. */
    @Override
    default void close() throws IOException {}
}
