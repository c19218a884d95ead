package dev.ipclab.peer;

import dev.ipclab.peer.rpc.Framework;
import dev.ipclab.peer.rpc.RpcServer;
import java.io.IOException;

/** A framework's own threaded server (section 10) behind the peer's {@link Server}. */
final class RpcServerAdapter implements Server {
    private final RpcServer server;

    private RpcServerAdapter(RpcServer server) {
        this.server = server;
    }

    static Server open(Framework framework, ServeOptions options) throws PeerException {
        try {
            return new RpcServerAdapter(framework.serve(options.endpoint(), options.seed(),
                    options.flipResponseByte()));
        } catch (IOException | RuntimeException e) {
            throw new PeerException(ErrorKind.IO, "cannot serve " + framework.label() + " on "
                    + options.endpoint() + ": " + PeerException.describe(e), e);
        }
    }

    @Override
    public String endpoint() {
        return server.endpoint();
    }

    /** The framework's threads answer calls; this one waits for the stop. */
    @Override
    public int serve() {
        try {
            server.awaitTermination();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    @Override
    public void stop() {
        server.close();
    }

    @Override
    public void close() {
        server.close();
    }
}
