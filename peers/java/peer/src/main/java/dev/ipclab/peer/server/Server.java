package dev.ipclab.peer.server;

import dev.ipclab.peer.transport.StreamListener;

/**
 * A server of one mechanism: listening from when it is made (the mechanism table's serve, or a
 * burst server) on, serving until stopped.
 */
public interface Server extends AutoCloseable {
    /** The endpoint for the READY line. */
    String endpoint();

    /** A burst server's model, for the READY line (section 11.4); null for other servers. */
    default String serverModel() {
        return null;
    }

    /** The server a responder is a client of (Redis's version, 4.10), for READY; else null. */
    default String broker() {
        return null;
    }

    /**
     * Serves clients until stopped or, for pipe, until its one client is done.
     *
     * @return the exit code: 0; for pipe also 4 (a malformed frame), 5 (the transport failed) or
     *     1 (out of memory)
     */
    int serve();

    /** Asks serve() to return; see {@link StreamListener#stop()} for FIFOs. Thread-safe. */
    void stop();

    /** Releases the endpoint and removes its files (socket file, FIFOs). Idempotent. */
    @Override
    void close();
}
