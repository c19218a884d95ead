package dev.ipclab.peer.transport;

import java.io.Closeable;
import java.io.IOException;

/**
 * short (PROTOCOL.md section 11.2): how a round trip gets its own connection; closing the link
 * ends it. The part a user's connection does not pay per message, the socket and its source
 * bind, is made by {@link #prepare()} before the sample's clock starts; {@link #dial()} connects
 * (or opens the queue) inside it.
 */
public interface Dial extends Closeable {
    /** Makes the next connection's socket (and bind) now, outside the clock; default nothing. */
    default void prepare() throws IOException {}

    /** Connects the prepared socket (preparing one first if none is), or opens the queues. */
    ClientLink dial() throws IOException;

    /** Releases what the dialer keeps between connections (a prepared socket, native buffers). */
    @Override
    default void close() throws IOException {}
}
