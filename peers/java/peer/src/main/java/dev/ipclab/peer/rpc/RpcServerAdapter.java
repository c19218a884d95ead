package dev.ipclab.peer.rpc;

import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Server;
import java.io.IOException;

/** A framework's own threaded server (section 10) behind the peer's {@link Server}. */
public final class RpcServerAdapter implements Server {
    private final RpcServer server;

    private RpcServerAdapter(RpcServer server) {
        this.server = server;
    }

    /** A framework's failure to start (a RuntimeException in most of them) is an io error. */
    public static Server open(RpcServer.Factory factory, String endpoint, long seed, Fault fault,
            boolean nodelay) throws IOException {
        try {
            return new RpcServerAdapter(factory.serve(RpcServer.address(endpoint),
                    new BenchState(seed, fault), nodelay));
        } catch (RuntimeException e) {
            throw new IOException(PeerException.describe(e), e);
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
