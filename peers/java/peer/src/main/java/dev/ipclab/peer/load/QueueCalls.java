package dev.ipclab.peer.load;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.transport.ClientLink;
import java.io.IOException;

/**
 * A load connection over a message queue (PROTOCOL.md 11.5.5): section 2's frames
 * ({@link FrameCalls}) on the request queue every connection shares, each REQUEST and END one
 * message whose flags are 0x8000 + c, the reply address the server answers connection c at.
 */
public final class QueueCalls {
    /** A REQUEST is one message: M − 24 payload bytes at most. */
    public static final int MAX_REQUEST = 8192 - Frame.HEADER_SIZE;

    private QueueCalls() {}

    /** How the mechanism opens connection c's link (its reply address made or named). */
    public interface Link {
        ClientLink open(int connection) throws IOException;
    }

    /**
     * @throws PeerException unsupported: a REQUEST that does not fit one message (checked before
     *     anything is made)
     * @throws IOException the queues cannot be opened or the reply queue made
     */
    public static LoadCalls connect(Link link, int connection, long seed, int requestSize,
            int responseSize) throws IOException, PeerException {
        if (requestSize > MAX_REQUEST) {
            throw PeerException.unsupported("load over a message queue sends each request as one "
                    + "message: --request-size is at most " + MAX_REQUEST + ", asked for "
                    + requestSize);
        }
        return new FrameCalls(link.open(connection), seed, requestSize, responseSize,
                (short) (Frame.REPLY_ADDRESS + connection));
    }
}
