package dev.ipclab.peer.server;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.transport.StreamConnection;
import dev.ipclab.peer.transport.StreamListener;
import java.io.IOException;
import java.io.PrintStream;

/** tcp, uds, pipe, fifo: clients one at a time, in order; a bad client never ends the server. */
public final class StreamServer implements Server {
    private final StreamListener listener;
    private final ConnectionHandler handler;
    private final PrintStream diagnostics;
    private volatile boolean stopping;

    public StreamServer(StreamListener listener, Responder responder, PrintStream diagnostics) {
        this(listener, responder, diagnostics, 0);
    }

    /**
     * @param readSize --read-size (section 11.1): the most each receive of stream messages asks
     *     for; 0 reads greedily
     */
    public StreamServer(StreamListener listener, Responder responder, PrintStream diagnostics,
            int readSize) {
        this.listener = listener;
        this.handler = new ConnectionHandler(responder, diagnostics, readSize);
        this.diagnostics = diagnostics;
    }

    @Override
    public String endpoint() {
        return listener.endpoint();
    }

    @Override
    public int serve() {
        while (!stopping) {
            StreamConnection connection;
            try {
                connection = listener.accept();
            } catch (IOException e) {
                if (stopping) {
                    return 0;
                }
                diagnostics.println("ipclab-peer: io: cannot accept a client: " + PeerException.describe(e));
                return ErrorKind.IO.exitCode();
            }
            if (connection == null) {
                return 0;
            }
            int outcome = serveOne(connection);
            if (listener.singleClient()) {
                return outcome;
            }
        }
        return 0;
    }

    /** @return the exit code this client's end would give a single-client server */
    private int serveOne(StreamConnection connection) {
        try (connection) {
            String rejection = handler.serve(connection);
            return rejection == null ? 0 : ErrorKind.PROTOCOL.exitCode();
        } catch (IOException e) {
            if (stopping) {
                return 0;
            }
            diagnostics.println("ipclab-peer: io: client connection failed: " + PeerException.describe(e));
            return ErrorKind.IO.exitCode();
        } catch (OutOfMemoryError e) {
            // A valid 128 MiB frame under a too small -XX:MaxDirectMemorySize: this client is
            // dropped, the server lives on for the next one.
            diagnostics.println("ipclab-peer: internal: out of memory serving a client (raise "
                    + "-XX:MaxDirectMemorySize): " + e.getMessage());
            return ErrorKind.INTERNAL.exitCode();
        }
    }

    @Override
    public void stop() {
        stopping = true;
        try {
            listener.stop();
        } catch (IOException e) {
            diagnostics.println("ipclab-peer: io: stopping the listener: " + PeerException.describe(e));
        }
    }

    @Override
    public void close() {
        stopping = true;
        try {
            listener.close();
        } catch (IOException e) {
            diagnostics.println("ipclab-peer: io: cannot remove the endpoint: " + PeerException.describe(e));
        }
    }
}
