package dev.ipclab.peer.transport;

import dev.ipclab.peer.frame.PeerException;
import io.nats.client.Connection;
import io.nats.client.Consumer;
import io.nats.client.ErrorListener;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.Subscription;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * One jnats connection of the nats mechanism (PROTOCOL.md 4.11), the responder's or the
 * client's: to one server, never reconnecting (a lost server ends the exchange with an io error,
 * not a reconnection that would hide it); synchronous subscriptions whose pending limits are
 * lifted (jnats would drop what passes 64 MiB; the stream's window bounds what waits); jnats's
 * unchecked exceptions as the peer's {@link IOException}s, a wait past its time a
 * {@link ReceiveTimeoutException}; and, instead of the library's logging to stderr, its last
 * complaint kept to be said in the error that follows.
 *
 * <p>jnats publishes through a writer thread of its own: {@code publish} queues the message and
 * the writer, woken at once, copies it into its send buffer and writes it to the socket (with
 * whatever else is queued by then; nothing waits for a batch), so no flush follows a publish:
 * {@code flushBuffer()} only flushes the socket's stream, which holds nothing, and a flush per
 * message measured no faster here (16 B rr, Java to Java: a median of 201-212 us without it,
 * 217-259 us with it). A published array is read by that thread later, so it must not change
 * until written: the callers know when it has been (its answer or a credit came back, see
 * {@link NatsLink}, {@link NatsPort}).
 */
final class NatsConnection implements Closeable {
    /** Waiting "for ever" on a subscription (jnats: a zero Duration). */
    static final long FOREVER = 0;

    private final Connection connection;
    private final String where;
    private final Complaints complaints;

    private NatsConnection(Connection connection, String where, Complaints complaints) {
        this.connection = connection;
        this.where = where;
        this.complaints = complaints;
    }

    /**
     * Connects (INFO, CONNECT, PING, PONG) within timeoutNanos.
     *
     * @throws IOException naming the server where it cannot
     */
    static NatsConnection open(NatsEndpoint endpoint, long timeoutNanos) throws IOException {
        Complaints complaints = new Complaints();
        Options options = Options.builder().server(endpoint.url())
                .maxReconnects(0) // a lost server closes the connection: an io error
                .connectionTimeout(Duration.ofNanos(timeoutNanos))
                // No write deadline (jnats's default: 1 min, then it drops the connection; the
                // C++ and Python peers set none): a 64 MiB message over a slow link (a case's
                // --link) may take longer to write.
                .socketWriteTimeout(0)
                .errorListener(complaints)
                .build();
        try {
            return new NatsConnection(Nats.connect(options), endpoint.where(), complaints);
        } catch (IOException | RuntimeException e) {
            throw new IOException("connect to NATS at " + endpoint.where() + ": "
                    + PeerException.describe(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("connect to NATS at " + endpoint.where());
        }
    }

    /** {@code "jnats 2.20.5"}: the version the library itself reports (and sends in CONNECT). */
    static String library() {
        return "jnats " + Nats.CLIENT_VERSION;
    }

    /** The server's version from its INFO ({@code "2.9.10"}). */
    String serverVersion() {
        String version = connection.getServerInfo().getVersion();
        return version == null || version.isEmpty() ? "unknown" : version;
    }

    /** A new inbox subject of the library's: {@code _INBOX.} and a unique id. */
    String createInbox() {
        return connection.createInbox();
    }

    /** A synchronous subscription to subject, its pending limits lifted (4.11). */
    Subscription subscribe(String subject) throws IOException {
        try {
            Subscription sub = connection.subscribe(subject);
            sub.setPendingLimits(-1, -1); // at most 0: no limit
            return sub;
        } catch (RuntimeException e) {
            throw failure("subscribe to " + subject, e);
        }
    }

    /**
     * Publishes body to subject, with replyTo as its reply subject unless null. Over the server's
     * max_payload the library refuses it before anything is sent (4.11).
     */
    void publish(String subject, String replyTo, byte[] body) throws IOException {
        try {
            connection.publish(subject, replyTo, body);
        } catch (RuntimeException e) {
            throw failure("publish " + body.length + " bytes to " + subject, e);
        }
    }

    /** Waits until the server has had everything sent so far (a PING answered). */
    void flush(long timeoutNanos) throws IOException {
        try {
            connection.flush(Duration.ofNanos(timeoutNanos));
        } catch (TimeoutException | RuntimeException e) {
            throw failure("flush to NATS at " + where, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("flush to NATS at " + where);
        }
    }

    /**
     * The next message of sub within timeoutNanos ({@link #FOREVER}: however long it takes).
     *
     * @throws ReceiveTimeoutException nothing came in time
     * @throws IOException the connection is closed (a lost server)
     */
    Message next(Subscription sub, long timeoutNanos) throws IOException {
        Message m;
        try {
            m = sub.nextMessage(Duration.ofNanos(timeoutNanos));
        } catch (IllegalStateException e) { // the subscription is gone with its connection
            throw closed();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("a message on " + sub.getSubject());
        }
        if (m == null) {
            if (!open()) {
                throw closed();
            }
            throw new ReceiveTimeoutException("nothing on " + sub.getSubject()
                    + " within --io-timeout");
        }
        return m;
    }

    /** Drops every message that has come on sub and not been taken. */
    void discardPending(Subscription sub) throws IOException {
        for (long n = sub.getPendingMessageCount(); n > 0; n--) {
            next(sub, 1_000_000_000L);
        }
    }

    /** Whether the connection still stands (not closed by a lost server or {@link #close}). */
    boolean open() {
        return connection.getStatus() != Connection.Status.CLOSED;
    }

    /** Closes the connection; a blocked {@link #next} then fails at once. */
    @Override
    public void close() {
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private IOException failure(String what, Exception e) {
        return open() ? new IOException(what + ": " + PeerException.describe(e), e) : closed();
    }

    private IOException closed() {
        String why = complaints.last;
        return new IOException("the connection to the NATS server at " + where + " is closed"
                + (why == null ? "" : " (" + why + ")"));
    }

    /** What the library reports on its own threads, the last of it kept, nothing printed. */
    private static final class Complaints implements ErrorListener {
        volatile String last;

        @Override
        public void errorOccurred(Connection conn, String error) {
            last = "the server said: " + error;
        }

        @Override
        public void exceptionOccurred(Connection conn, Exception exp) {
            last = PeerException.describe(exp);
        }

        @Override
        public void slowConsumerDetected(Connection conn, Consumer consumer) {
            last = "the library dropped messages (a slow consumer)";
        }

        @Override
        public void messageDiscarded(Connection conn, Message msg) {
            last = "the library discarded a message to " + msg.getSubject();
        }

        @Override
        public void socketWriteTimeout(Connection conn) {
            last = "a socket write timed out";
        }
    }
}
