package dev.ipclab.peer.load;

import dev.ipclab.peer.frame.PeerException;

/**
 * One connection's calls for a load client (PROTOCOL.md 11.5.3, 11.5.4): what differs between
 * section 2's frames and an RPC framework's stub. {@link LoadConnection} owns the schedule, the
 * clock and the ledger; an implementation only prepares, exchanges, checks and ends.
 */
public interface LoadCalls extends AutoCloseable {
    /** Untimed, before the wait for the intended start: request k's arguments, stamped. */
    void prepare(long k);

    /**
     * Timed: sends request k and returns once its whole response is in.
     *
     * @throws PeerException why it failed: timeout, io (its cause tells reset and eof), protocol
     */
    void exchange(long k) throws PeerException;

    /**
     * Untimed, after {@code received}: the response's check.
     *
     * @return null when it is the expected one; else a protocol error (the connection cannot go
     *     on) or a payload mismatch (it can)
     */
    PeerException check(long k);

    /**
     * After the connection's last request: END and END_ACK, or the framework's {@code finish}.
     *
     * @param next the sequence after this connection's last request (0 for none)
     * @return the server's corrupted-request count
     * @throws PeerException the end failed (io, timeout, protocol)
     */
    long end(long next) throws PeerException;

    /** Releases the connection; never throws. */
    @Override
    void close();
}
