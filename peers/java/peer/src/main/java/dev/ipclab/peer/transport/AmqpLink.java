package dev.ipclab.peer.transport;

import dev.ipclab.peer.frame.Frame;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The activemq client (PROTOCOL.md 4.7): one connection and one session, a producer to the
 * responder's queue and a consumer on {@code ipclab.<pid>.replies}, both made before the first
 * frame. A frame (REQUEST, END, MARK) is one message with reply-to and its sequence as a ulong
 * correlation-id; a stream's bare message carries neither (nothing answers it). A send returns
 * once the broker has settled the message; a receive waits at most --io-timeout.
 */
public final class AmqpLink implements ClientLink {
    private final Connection connection;
    private final Session session;
    private final MessageProducer producer;
    private final MessageConsumer consumer;
    private final Queue replies;
    private final String repliesName = Amqp.ownQueue("replies");
    private final AtomicReference<JMSException> failure;
    private final long timeoutMillis;
    private final Amqp.Copier copier = new Amqp.Copier();
    /** The correlation-id of the last frame sent, which its answer must carry. */
    private String expected;

    private AmqpLink(Connection connection, AtomicReference<JMSException> failure,
            String queue, long ioTimeoutNanos, boolean persistent) throws JMSException {
        this.connection = connection;
        this.failure = failure;
        this.timeoutMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(ioTimeoutNanos + 999_999));
        this.session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        this.producer = Amqp.producer(session, session.createQueue(queue), persistent);
        this.replies = session.createQueue(repliesName);
        this.consumer = session.createConsumer(replies);
    }

    /**
     * @param endpoint {@code amqp://HOST:PORT/QUEUE}
     * @param persistent --delivery persistent: every message durable
     */
    public static ClientLink connect(String endpoint, long ioTimeoutNanos, boolean persistent)
            throws IOException {
        Amqp.Address address = Amqp.parse(endpoint, true);
        AtomicReference<JMSException> failure = new AtomicReference<>();
        Connection connection = Amqp.connect(address.broker(), failure);
        try {
            return new AmqpLink(connection, failure, address.queue(), ioTimeoutNanos, persistent);
        } catch (JMSException e) {
            Amqp.closeQuietly(connection, e);
            throw Amqp.io("cannot open the queues at " + address.broker(), e);
        }
    }

    /** A frame: answered on the reply queue, with its sequence as the correlation-id. */
    @Override
    public void send(ByteBuffer frame) throws IOException {
        try {
            BytesMessage message = copier.message(session, frame);
            message.setJMSReplyTo(replies);
            long sequence = Frame.sequence(frame, frame.position());
            expected = Amqp.ULONG_ID + Long.toUnsignedString(sequence);
            message.setJMSCorrelationID(expected);
            producer.send(message);
        } catch (JMSException e) {
            throw Amqp.io("send to the broker failed", e);
        }
    }

    /** A stream's bare message (11.1): no reply-to, no correlation-id. */
    @Override
    public void sendMessage(ByteBuffer message) throws IOException {
        try {
            producer.send(copier.message(session, message));
        } catch (JMSException e) {
            throw Amqp.io("send to the broker failed", e);
        }
    }

    /**
     * The next message on the reply queue, which must answer the last frame sent (its
     * correlation-id) and carry bytes; its body is copied only when it fits, so that a message of
     * the wrong size shows as such (as a datagram's would).
     *
     * @throws WrongAnswerException another correlation-id, or a body that is not bytes
     */
    @Override
    public int receive(ByteBuffer dst, int frameSize) throws IOException {
        Message message;
        try {
            message = consumer.receive(timeoutMillis);
        } catch (JMSException e) {
            throw Amqp.io("receive from the broker failed", e);
        }
        if (message == null) {
            JMSException lost = failure.get();
            if (lost != null) {
                throw Amqp.io("the connection to the broker failed", lost);
            }
            throw new ReceiveTimeoutException("no answer on " + repliesName
                    + " within --io-timeout (" + timeoutMillis / 1e3 + " s)");
        }
        try {
            String correlation = message.getJMSCorrelationID();
            if (!expected.equals(correlation)) {
                throw new WrongAnswerException("answer correlation-id: expected "
                        + Amqp.describeId(expected) + ", received " + Amqp.describeId(correlation));
            }
            BytesMessage bytes = Amqp.bytesOf(message);
            if (bytes == null) {
                throw new WrongAnswerException("an answer whose body is not one data section");
            }
            return copier.copy(bytes, dst);
        } catch (JMSException e) {
            throw Amqp.io("cannot read an answer", e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            connection.close();
        } catch (JMSException e) {
            throw Amqp.io("closing the broker connection failed", e);
        }
    }
}
