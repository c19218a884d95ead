package dev.ipclab.peer.transport;

import java.io.Closeable;
import java.io.IOException;

/** Where a stream server gets its clients, one at a time and in arrival order. */
public interface StreamListener extends Closeable {
    /** The endpoint as the READY line reports it (PROTOCOL.md section 4). */
    String endpoint();

    /**
     * Waits for the next client.
     *
     * @return the connection, or null when no further client can come (pipe: after its one)
     */
    StreamConnection accept() throws IOException;

    /** True when the server serves exactly one client and its end ends the server (pipe). */
    default boolean singleClient() {
        return false;
    }

    /** Makes a blocked or later accept give up; files stay until close. */
    void stop() throws IOException;

    /** Stops listening and removes what the listener created (socket file, FIFOs). Idempotent. */
    @Override
    void close() throws IOException;
}
