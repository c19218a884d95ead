package dev.ipclab.peer.transport;

import io.nats.client.Message;
import io.nats.client.Subscription;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The nats responder (PROTOCOL.md 4.11) as a {@link DatagramPort}, so the {@code DatagramServer}
 * checks and answers every message as it does a datagram: one jnats connection, one subscription
 * to NAME.requests (on the server before READY: a flush); each message taken as a frame and
 * answered on its reply subject, or, while a MARK's messages are due, counted, with a credit (an
 * empty message) published to NAME.credits per K(S) of them. A frame left unanswered (rejected)
 * gets an empty message on its reply subject before the next take; a frame with none cannot be
 * answered ({@code no reply-to}). A lost connection closes the port, which ends the server with
 * an io error.
 *
 * <p>An answer's array (one per answer size, reused) is read by jnats's writer thread after
 * {@code publish} returns; it is written before the client can send its next frame, which needs
 * the answer first (the one client waits for each answer, 4.11).
 */
public final class NatsPort extends CreditedPort {
    /** The connection's wait and the subscription's flush. */
    private static final long CONNECT_NANOS = 30_000_000_000L;

    private final NatsConnection connection;
    private final Subscription requests;
    private final String credits;
    /** The reply subject of the message handed out last. */
    private String replyTo;
    /** A frame was handed out and not answered. */
    private boolean owed;

    private NatsPort(NatsConnection connection, NatsEndpoint endpoint, Subscription requests,
            String broker) {
        super(endpoint.text(), NatsLink.MAX_PAYLOAD, NatsLink.MAX_MESSAGE, broker);
        this.connection = connection;
        this.requests = requests;
        this.credits = endpoint.credits();
    }

    /**
     * Connects, subscribes to NAME.requests and flushes (the subscription is on the server before
     * READY); READY's {@code broker} is the server's version from its INFO.
     */
    public static DatagramPort connect(String endpoint) throws IOException {
        NatsEndpoint at = NatsEndpoint.parse(endpoint);
        NatsConnection connection = NatsConnection.open(at, CONNECT_NANOS);
        try {
            Subscription requests = connection.subscribe(at.requests());
            connection.flush(CONNECT_NANOS);
            return new NatsPort(connection, at, requests, "NATS " + connection.serverVersion());
        } catch (IOException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    @Override
    public int receive(ByteBuffer dst, boolean messageDue) throws IOException {
        if (owed) {
            owed = false;
            if (replyTo != null) { // rejected: the empty answer (4.11)
                publish(replyTo, EMPTY);
            }
        }
        Message m;
        try {
            m = connection.next(requests, NatsConnection.FOREVER);
        } catch (IOException | RuntimeException e) {
            // An untimed take fails only once the subscription is gone with its connection,
            // which never comes back (no reconnection): the responder ends (4.11).
            open = false;
            throw e;
        }
        hold(m.getData());
        String reply = m.getReplyTo();
        replyTo = reply == null || reply.isEmpty() ? null : reply;
        if (messageDue) {
            if (creditDue()) {
                publish(credits, EMPTY);
            }
        } else {
            owed = true;
        }
        return copyHeld(dst);
    }

    /** A publish; one that fails on a closed connection ends the responder (4.11). */
    private void publish(String subject, byte[] body) throws IOException {
        try {
            connection.publish(subject, null, body);
        } catch (IOException | RuntimeException e) {
            open = connection.open();
            throw e;
        }
    }

    /** A stream's credits count from its MARK (4.11), whose answer comes next. */
    @Override
    public void streamStarts(int messageSize, long count) {
        startCredits(messageSize);
    }

    /** A well-formed frame without a reply subject cannot be answered (4.11). */
    @Override
    public String answerProblem() {
        return replyTo == null ? "no reply-to" : null;
    }

    /** The answer, published to the frame's reply subject at once. */
    @Override
    public void reply(ByteBuffer frame) throws IOException {
        publish(replyTo, bytes.of(frame));
        owed = false;
    }

    /** Closing the connection makes the serving thread's blocked take fail at once. */
    @Override
    public void wake() {
        connection.close();
    }

    @Override
    public void close() {
        open = false;
        connection.close();
    }
}
