package dev.ipclab.peer.rpc;

import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Server;
import java.io.IOException;

/** A framework's own threaded server (section 10) behind the peer's {@link Server}. */
public final class RpcServerAdapter implements Server {
    private final RpcServer server;
    private final String model;

    private RpcServerAdapter(RpcServer server, String model) {
        this.server = server;
        this.model = model;
    }

    /** A framework's failure to start (a RuntimeException in most of them) is an io error. */
    public static Server open(RpcServer.Factory factory, String endpoint, long seed, Fault fault,
            boolean nodelay) throws IOException {
        return open(factory, endpoint, seed, fault, nodelay, null);
    }

    /**
     * A load server (11.5.4): the same service in one of the framework's configurations.
     *
     * @param model READY's {@code server_model}; null for the rr server, whose READY has none
     */
    public static Server open(RpcServer.Factory factory, String endpoint, long seed, Fault fault,
            boolean nodelay, String model) throws IOException {
        try {
            return new RpcServerAdapter(factory.serve(RpcServer.address(endpoint),
                    new BenchState(seed, fault), nodelay), model);
        } catch (RuntimeException e) {
            throw new IOException(PeerException.describe(e), e);
        }
    }

    @Override
    public String endpoint() {
        return server.endpoint();
    }

    @Override
    public String serverModel() {
        return model;
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
