package dev.ipclab.peer.pattern;

import dev.ipclab.peer.frame.PeerException;
import java.io.Closeable;
import java.io.IOException;

/**
 * A connected client of one mechanism, as rr and short drive it ({@link RoundTrips}): frames over
 * a link ({@link Exchange}), in-process calls ({@code inprocess.InProcess}) or a framework's stub
 * calls ({@code rpc.RpcDrive}).
 */
public interface Session extends Closeable {
    /**
     * One request-response round trip, timed as PROTOCOL.md section 7 says.
     *
     * @return its nanoseconds, returned only once the response passed every check
     */
    long roundTrip(long sequence) throws PeerException, IOException;

    /** After the last round trip: END / END_ACK or the framework's finish, and its verdict. */
    void finish(long sequence) throws PeerException, IOException;

    /** Releases the connection; the default has nothing to release. */
    @Override
    default void close() throws IOException {}
}
