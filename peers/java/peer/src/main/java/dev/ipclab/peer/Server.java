package dev.ipclab.peer;

import java.io.IOException;
import java.io.PrintStream;

/** A server of one mechanism: listening from open() on, serving until stopped. */
interface Server extends AutoCloseable {
    /**
     * Creates the endpoint (listens, binds, makes the FIFOs or opens the pipes).
     *
     * @throws PeerException unsupported mechanism, or io when the endpoint cannot be made
     */
    static Server open(ServeOptions options, PrintStream diagnostics) throws PeerException {
        Mechanism mechanism = Mechanism.byName(options.mechanism()).orElseThrow(() ->
                PeerException.unsupported("unknown mechanism " + options.mechanism()));
        if (!mechanism.serves()) {
            throw PeerException.unsupported(mechanism.label()
                    + " is an in-process call: there is no server (drive only)");
        }
        try {
            if (options.burst() != null) {
                return BurstServer.open(mechanism, options, diagnostics);
            }
            return mechanism.serve(options, diagnostics);
        } catch (IOException e) {
            throw PeerException.io("cannot listen on " + options.endpoint() + ": "
                    + PeerException.describe(e), e);
        }
    }

    /** The endpoint for the READY line. */
    String endpoint();

    /** A burst server's model, for the READY line (section 11.4); null for other servers. */
    default String serverModel() {
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
