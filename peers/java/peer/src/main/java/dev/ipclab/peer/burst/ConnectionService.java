package dev.ipclab.peer.burst;

import java.nio.channels.SocketChannel;

/**
 * What a server model's task does with one accepted connection on a blocking channel: a burst's
 * one round trip ({@link BurstExchange}) or a load server's exchange until END
 * ({@link LoadExchange}). The accept loops, spawns and pools of {@link BurstModels} are the same.
 */
interface ConnectionService {
    /** Serves the connection, closes it, and finishes its record (total, error). */
    void serve(SocketChannel channel, PhaseRecord record);

    /** The server is closing: ends connections still being served. */
    default void close() {}
}
