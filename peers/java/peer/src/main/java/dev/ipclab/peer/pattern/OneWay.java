package dev.ipclab.peer.pattern;

import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.frame.StreamAck;
import java.io.Closeable;
import java.io.IOException;

/**
 * A connected stream client (PROTOCOL.md section 11.1), as {@link StreamDrive} drives it: bare
 * messages between MARKs over a link ({@link StreamExchange}), or a framework's client-streaming
 * call ({@code rpc.GrpcBench}, section 11.3).
 */
public interface OneWay extends Closeable {
    /** Sends one message, stamped for this sequence; nothing comes back. No allocation. */
    void data(long sequence) throws PeerException, IOException;

    /** The first MARK, announcing the count warm-up messages; returns once it is answered. */
    void start(long sequence, long count) throws PeerException, IOException;

    /**
     * The barrier after the warm-up, announcing the count measured messages: returns once the
     * server has everything before it.
     */
    void mark(long sequence, long count) throws PeerException, IOException;

    /** Ends the stream; returns once the server's figures are back (END_ACK). */
    StreamAck end(long sequence) throws PeerException, IOException;

    /** Whether messages may be lost without an error (udp): then the client counts them. */
    default boolean lossy() {
        return false;
    }

    @Override
    default void close() throws IOException {}
}
