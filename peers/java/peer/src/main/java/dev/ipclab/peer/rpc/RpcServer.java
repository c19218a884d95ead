package dev.ipclab.peer.rpc;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A running server of one framework: accepting calls from construction until closed. Each
 * framework gives only its READY endpoint and how it shuts down; waiting for the stop and closing
 * once (a second close waits for the first) are the same for all.
 */
public final class RpcServer implements AutoCloseable {
    /**
     * How a framework starts its server on an address (port 0: any), serving the bench.
     * {@code nodelay} false (--nodelay off) reaches only rest and grpc: the peer refuses it for
     * the others before serving.
     */
    public interface Factory {
        RpcServer serve(InetSocketAddress address, BenchState bench, boolean nodelay)
                throws IOException;
    }

    /** The framework's own shutdown, called once. */
    interface Shutdown {
        void run() throws Exception;
    }

    private final String endpoint;
    private final Shutdown shutdown;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);

    RpcServer(String endpoint, Shutdown shutdown) {
        this.endpoint = endpoint;
        this.shutdown = shutdown;
    }

    /** READY's endpoint: {@code HOST:PORT}, or the IOR for corba. */
    public String endpoint() {
        return endpoint;
    }

    /** Blocks until {@link #close} (from a signal or stdin EOF) has been called. */
    public void awaitTermination() throws InterruptedException {
        stopped.await();
    }

    /** Stops accepting and releases the port. Idempotent, thread-safe; never from a handler. */
    @Override
    public void close() {
        if (closing.compareAndSet(false, true)) {
            try {
                shutdown.run();
            } catch (Exception e) {
                // Already stopped or half gone: nothing left that could be released.
            } finally {
                stopped.countDown();
            }
        } else {
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** {@code HOST:PORT} (already checked by the command line), unresolved hosts resolved here. */
    public static InetSocketAddress address(String endpoint) {
        int colon = endpoint.lastIndexOf(':');
        String host = endpoint.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new InetSocketAddress(host, Integer.parseInt(endpoint.substring(colon + 1)));
    }

    /** READY's {@code HOST:PORT} for a bound address: an IP literal. */
    static String format(String host, int port) {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    /** READY's {@code HOST:PORT} for a server bound on the requested address's host. */
    static String format(InetSocketAddress requested, int port) {
        return format(requested.getAddress().getHostAddress(), port);
    }
}
