package dev.ipclab.peer.transport;

import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.qpid.jms.JmsConnectionFactory;

/**
 * activemq (PROTOCOL.md 4.7): both peers are AMQP 1.0 clients of a broker, through Apache Qpid
 * JMS used as plain Jakarta JMS. What the responder ({@link AmqpPort}) and the client
 * ({@link AmqpLink}) share: the endpoint grammar, one connection whose sends wait for the
 * broker's settlement, producers that set no JMS header of their own, the frame's bytes as one
 * BytesMessage (Qpid JMS sends its body as one AMQP {@code data} section) and the ulong
 * correlation-id.
 */
public final class Amqp {
    private static final String SCHEME = "amqp://";
    /**
     * Sends wait for the broker's disposition in both delivery modes: Qpid JMS sends persistent
     * messages synchronously anyway, non-persistent ones asynchronously unless told, and 4.7
     * measures delivered messages, not buffered ones.
     */
    private static final String OPTIONS = "?jms.forceSyncSend=true";
    /**
     * Qpid JMS sends a JMSCorrelationID with this prefix as an AMQP ulong (and gives a received
     * ulong back with it); without it the id would be an AMQP string.
     */
    static final String ULONG_ID = "ID:AMQP_ULONG:";

    private Amqp() {}

    /**
     * An endpoint: the broker's {@code amqp://HOST:PORT} and, for a client, the queue after it.
     *
     * @param queue null for a responder's endpoint
     */
    public record Address(String broker, String queue) {}

    /**
     * Parses {@code amqp://HOST:PORT} (responder) or {@code amqp://HOST:PORT/QUEUE} (client).
     *
     * @throws IllegalArgumentException if the endpoint is not of that form
     */
    public static Address parse(String endpoint, boolean drive) {
        String form = drive ? "amqp://HOST:PORT/QUEUE" : "amqp://HOST:PORT";
        if (!endpoint.startsWith(SCHEME)) {
            throw new IllegalArgumentException("an activemq endpoint is " + form + ", got '"
                    + endpoint + "'");
        }
        int slash = endpoint.indexOf('/', SCHEME.length());
        if (drive != (slash >= 0) || (drive && slash == endpoint.length() - 1)) {
            throw new IllegalArgumentException("an activemq endpoint is " + form + ", got '"
                    + endpoint + "'");
        }
        String broker = drive ? endpoint.substring(0, slash) : endpoint;
        Endpoints.hostPort(broker.substring(SCHEME.length()));
        return new Address(broker, drive ? endpoint.substring(slash + 1) : null);
    }

    /** This process's queue for a role: {@code ipclab.<pid>.requests} or {@code .replies}. */
    static String ownQueue(String role) {
        return "ipclab." + ProcessHandle.current().pid() + "." + role;
    }

    /**
     * Connects and starts delivery; the listener keeps the first failure the connection reports
     * (the broker gone), which a receive that returned nothing then names.
     */
    static Connection connect(String broker, AtomicReference<JMSException> failure)
            throws IOException {
        try {
            Connection connection = new JmsConnectionFactory(broker + OPTIONS).createConnection();
            try {
                connection.setExceptionListener(e -> failure.compareAndSet(null, e));
                connection.start();
                return connection;
            } catch (JMSException | RuntimeException e) {
                closeQuietly(connection, e);
                throw e;
            }
        } catch (JMSException e) {
            throw io("cannot connect to the broker at " + broker, e);
        }
    }

    /**
     * A producer that sets only what 4.7 asks: the durable header by --delivery; no message-id
     * or creation time (JMSReplyTo and JMSCorrelationID are set per message).
     *
     * @param session its session; the destination null for an anonymous producer
     */
    static MessageProducer producer(Session session, jakarta.jms.Destination destination,
            boolean persistent) throws JMSException {
        MessageProducer producer = session.createProducer(destination);
        producer.setDeliveryMode(persistent ? DeliveryMode.PERSISTENT
                : DeliveryMode.NON_PERSISTENT);
        producer.setDisableMessageID(true);
        producer.setDisableMessageTimestamp(true);
        return producer;
    }

    /**
     * The frame bytes a message carries: a BytesMessage, which is how Qpid JMS gives a body of
     * one {@code data} section (an {@code amqp-value} holding binary reads the same through JMS).
     *
     * @return null for any other body (text, map, object, a sequence, none)
     */
    static BytesMessage bytesOf(Message message) {
        return message instanceof BytesMessage bytes ? bytes : null;
    }

    /** A received correlation-id as a reader knows it: a ulong's number, else as it came. */
    static String describeId(String correlation) {
        if (correlation == null) {
            return "none";
        }
        return correlation.startsWith(ULONG_ID) ? correlation.substring(ULONG_ID.length())
                : "'" + correlation + "'";
    }

    static IOException io(String what, JMSException e) {
        return new IOException(what + ": " + describe(e), e);
    }

    /** A JMSException's message and, where Qpid JMS wraps one, its cause's. */
    static String describe(JMSException e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e.getLinkedException();
        String own = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        return cause == null || cause.getMessage() == null || own.contains(cause.getMessage())
                ? own : own + " (" + cause.getMessage() + ")";
    }

    static void closeQuietly(Connection connection, Throwable failure) {
        try {
            connection.close();
        } catch (JMSException suppressed) {
            failure.addSuppressed(suppressed);
        }
    }

    /**
     * Frame bytes between the peer's direct buffers and JMS's byte[] API, through one array that
     * grows to the largest frame seen (JMS copies into and out of its own buffers anyway).
     */
    static final class Copier {
        private byte[] scratch = new byte[0];

        /** A BytesMessage whose body is exactly bytes [position, limit). */
        BytesMessage message(Session session, ByteBuffer bytes) throws JMSException {
            int size = bytes.remaining();
            bytes.get(bytes.position(), room(size), 0, size);
            BytesMessage message = session.createBytesMessage();
            message.writeBytes(scratch, 0, size);
            return message;
        }

        /**
         * Copies a message's body into dst from 0 when it fits.
         *
         * @return the body's size, which may exceed what dst holds
         */
        int copy(BytesMessage bytes, ByteBuffer dst) throws JMSException {
            long size = bytes.getBodyLength();
            if (size > dst.capacity()) {
                return (int) Math.min(size, Integer.MAX_VALUE);
            }
            int length = (int) size;
            bytes.reset(); // from the body's start, also when the same message is copied again
            bytes.readBytes(room(length), length);
            dst.put(0, scratch, 0, length);
            return length;
        }

        private byte[] room(int size) {
            if (scratch.length < size) {
                scratch = null; // lets a large previous array go before the next one is made
                scratch = new byte[size];
            }
            return scratch;
        }
    }
}
