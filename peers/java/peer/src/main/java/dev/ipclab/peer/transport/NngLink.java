package dev.ipclab.peer.transport;

import dev.ipclab.peer.frame.Frame;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The nng-tcp and nng-ipc client (PROTOCOL.md 4.9): a REQ for the frames and, for a stream, a
 * PUSH for its messages, both dialed synchronously before the clock (a server that is not there
 * is an io error at once). What keeps a round trip down to the library's own cost:
 * NNG_OPT_REQ_RESENDTIME off, since req0 would otherwise send a request again after a minute
 * without a reply (a second REQUEST to the server) and arm its timer at every send; blocking
 * sends and receives on this thread; the receive timeout (--io-timeout) a deadline on libnng's
 * own expiry queue. A receive or send blocked longer than --io-timeout is a timeout.
 */
public final class NngLink implements ClientLink {
    private final Nng.Socket req;
    private final Nng.Socket push;
    private final Nng.Message answer = new Nng.Message();
    private final Segments segments = new Segments();

    private NngLink(Nng.Socket req, Nng.Socket push) {
        this.req = req;
        this.push = push;
    }

    /**
     * @param endpoint nng-tcp: READY's two addresses; nng-ipc: the server's PATH
     * @param largestAnswer the largest answer it waits for (its REQ's NNG_OPT_RECVMAXSZ, with
     *     the request ID's 4 bytes)
     * @param messageSize a stream's message size (its PUSH's send buffer); 0 for rr: no PUSH
     */
    public static ClientLink connect(String endpoint, boolean ipc, long ioTimeoutNanos,
            long largestAnswer, int messageSize) throws IOException {
        SocketPair sockets = ipc ? SocketPair.ipc(Endpoints.path(endpoint))
                : SocketPair.tcp(endpoint);
        int timeout = Math.max(1, LibraryLimits.millis(ioTimeoutNanos));
        Nng.Socket req = new Nng.Socket(Nng.Protocol.REQ);
        Nng.Socket push = null;
        try {
            req.setSize(Nng.RECVMAXSZ, Nng.REQUEST_ID + largestAnswer);
            req.setMillis(Nng.REQ_RESENDTIME, Nng.INFINITE);
            req.setMillis(Nng.RECVTIMEO, timeout);
            req.setMillis(Nng.SENDTIMEO, timeout);
            req.dial(sockets.requests());
            if (messageSize > 0) {
                push = new Nng.Socket(Nng.Protocol.PUSH);
                push.setSize(Nng.RECVMAXSZ, Frame.MAX_PAYLOAD);
                // Set before it dials: push0 blocks (never drops) when it is full, so this
                // bounds what the stream queues to about 64 MiB.
                push.setInt(Nng.SENDBUF, LibraryLimits.streamWindow(messageSize));
                push.setMillis(Nng.SENDTIMEO, timeout);
                push.dial(sockets.stream());
            }
            return new NngLink(req, push);
        } catch (IOException | RuntimeException e) {
            if (push != null) {
                push.close();
            }
            req.close();
            throw e;
        }
    }

    @Override
    public void send(ByteBuffer frame) throws IOException {
        req.send(segments.of(frame), frame.limit(), "a frame");
    }

    /** The answer copied into dst as far as it fits; its real size, so a wrong one shows. */
    @Override
    public int receive(ByteBuffer dst, int frameSize) throws IOException {
        answer.receive(req, "receive of an answer");
        try {
            long size = answer.size();
            MemorySegment.copy(answer.body(), 0, segments.of(dst.clear()), 0,
                    Math.min(size, dst.capacity()));
            return (int) Math.min(size, Integer.MAX_VALUE);
        } finally {
            answer.release();
        }
    }

    /** A stream message (11.1): one message on the PUSH socket. */
    @Override
    public void sendMessage(ByteBuffer message) throws IOException {
        if (push == null) {
            throw new IOException("a stream message on a link made for rr");
        }
        push.send(segments.of(message), message.limit(), "a stream message");
    }

    /**
     * Closes both sockets; libnng drops what they still hold, which is nothing once END_ACK
     * is in (the server has taken every message).
     */
    @Override
    public void close() {
        answer.release();
        if (push != null) {
            push.close();
        }
        req.close();
    }
}
