package dev.ipclab.peer.rpc;

/** A running server of one framework: accepting calls from construction until closed. */
public interface RpcServer extends AutoCloseable {
    /** READY's endpoint: {@code HOST:PORT}, or the IOR for corba. */
    String endpoint();

    /** Blocks until {@link #close} (from a signal or stdin EOF) has been called. */
    void awaitTermination() throws InterruptedException;

    /** Stops accepting and releases the port. Idempotent, thread-safe. */
    @Override
    void close();
}
