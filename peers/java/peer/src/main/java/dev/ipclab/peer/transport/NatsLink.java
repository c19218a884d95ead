package dev.ipclab.peer.transport;

import dev.ipclab.peer.frame.Frame;
import io.nats.client.Message;
import io.nats.client.Subscription;
import io.nats.client.support.Status;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The nats client (PROTOCOL.md 4.11) over one jnats connection: a frame is published to
 * NAME.requests with the client's one inbox as its reply subject, and its answer is the inbox's
 * next message, waited for at most --io-timeout (then a timeout); a stream message is published
 * with no reply subject, past the stream's window W(S) after a credit taken from NAME.credits.
 * Both subscriptions (the inbox, {@code _INBOX.} and the library's unique id, and NAME.credits)
 * are made once, at the start, and on the server before the first frame (a flush).
 *
 * <p>jnats's writer thread reads a published array after {@code publish} returns, so each array
 * stays as it is until it has been written: a frame's (one per frame size, reused) until its
 * answer came; a stream message's, one of W(S) arrays taken in turn, until the credit that
 * counts it came (message i reuses message i − W's array; before it is sent the client has
 * taken a credit for at least i − W + 1 messages, which the responder took, so they were
 * written).
 */
public final class NatsLink implements ClientLink {
    /** A NATS message holds at most the server's max_payload, 64 MiB, NATS's own cap (4.11). */
    public static final int MAX_MESSAGE = 64 << 20;
    /** A frame's payload: the message less the frame's header. */
    public static final int MAX_PAYLOAD = MAX_MESSAGE - Frame.HEADER_SIZE;
    /** The connection's wait and its subscriptions' flush where --io-timeout gives none. */
    private static final long CONNECT_NANOS = 30_000_000_000L;

    private final NatsConnection connection;
    private final String requests;
    private final String inboxSubject;
    private final Subscription inbox;
    private final Subscription credits;
    private final long timeoutNanos;
    private final int window;
    private final int every;
    private final RedisLink.Bytes frames = new RedisLink.Bytes();
    /** A stream's W(S) message arrays, made as they are first needed. */
    private byte[][] messages;
    /** Stream messages sent since the last MARK_ACK. */
    private long sent;

    private NatsLink(NatsConnection connection, NatsEndpoint endpoint, long timeoutNanos,
            int messageSize) throws IOException {
        this.connection = connection;
        this.requests = endpoint.requests();
        this.inboxSubject = connection.createInbox();
        this.inbox = connection.subscribe(inboxSubject);
        this.credits = connection.subscribe(endpoint.credits());
        this.timeoutNanos = timeoutNanos;
        this.window = LibraryLimits.streamWindow(messageSize);
        this.every = RedisLink.creditEvery(window);
        connection.flush(timeoutNanos); // both subscriptions on the server
    }

    /**
     * @param ioTimeoutNanos the connection's, each answer's and each credit's longest wait
     * @param messageSize a stream's message size (its window); 0 for rr
     */
    public static ClientLink connect(String endpoint, long ioTimeoutNanos, int messageSize)
            throws IOException {
        NatsEndpoint at = NatsEndpoint.parse(endpoint);
        long timeout = ioTimeoutNanos > 0 ? ioTimeoutNanos : CONNECT_NANOS;
        NatsConnection connection = NatsConnection.open(at, timeout);
        try {
            return new NatsLink(connection, at, timeout, messageSize);
        } catch (IOException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    /** {@code "jnats 2.20.5"}: capabilities' {@code library}, both sides' client library. */
    public static String library() {
        return NatsConnection.library();
    }

    @Override
    public void send(ByteBuffer frame) throws IOException {
        connection.publish(requests, inboxSubject, frames.of(frame));
    }

    /** The inbox's next message copied into dst as far as it fits; its real size. */
    @Override
    public int receive(ByteBuffer dst, int frameSize) throws IOException {
        Message m = connection.next(inbox, timeoutNanos);
        if (m.isStatusMessage()) {
            Status status = m.getStatus();
            if (status.getCode() == Status.NO_RESPONDERS_CODE) {
                throw new IOException("no responder on " + requests + " (the server's 503)");
            }
            throw new WrongAnswerException("the server answered status "
                    + status.getMessageWithCode() + " on " + inboxSubject);
        }
        byte[] answer = m.getData();
        dst.clear().put(0, answer, 0, Math.min(answer.length, dst.capacity()));
        // A MARK_ACK opens a stream's window: messages are counted from it, and the credits the
        // stream before left are all in by now (one server keeps one publisher's order, 4.11).
        if (answer.length == Frame.HEADER_SIZE && Frame.kind(dst) == Frame.MARK_ACK) {
            sent = 0;
            connection.discardPending(credits);
        }
        return answer.length;
    }

    /** A stream message (11.1): one publish, after a credit where the window is full. */
    @Override
    public void sendMessage(ByteBuffer message) throws IOException {
        if (sent >= window && (sent - window) % every == 0) {
            connection.next(credits, timeoutNanos);
        }
        if (messages == null) {
            messages = new byte[window][];
        }
        int slot = (int) (sent % window);
        int n = message.remaining();
        byte[] bytes = messages[slot];
        if (bytes == null || bytes.length != n) {
            bytes = new byte[n];
            messages[slot] = bytes;
        }
        message.get(message.position(), bytes, 0, n);
        connection.publish(requests, null, bytes);
        sent++;
    }

    /** Everything sent has been answered by now (END_ACK is in): the connection just closes. */
    @Override
    public void close() {
        connection.close();
    }
}
