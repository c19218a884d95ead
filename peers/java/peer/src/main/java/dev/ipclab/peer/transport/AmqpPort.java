package dev.ipclab.peer.transport;

import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The activemq responder's side (PROTOCOL.md 4.7) as a datagram port: each message on
 * {@code ipclab.<pid>.requests} is one frame or one bare stream message, and the answer goes to
 * its reply-to with its correlation-id, as a datagram's goes to its source. One connection, one
 * session (AUTO_ACKNOWLEDGE: a request is accepted as it is taken), one anonymous producer whose
 * sends wait for the broker's settlement. The broker deletes nothing and neither does this: the
 * orchestrator's broker is removed whole.
 */
public final class AmqpPort extends WholeMessagePort {
    private final Connection connection;
    private final Session session;
    private final MessageConsumer consumer;
    private final MessageProducer producer;
    private final AtomicReference<JMSException> failure;
    private final Amqp.Copier copier = new Amqp.Copier();
    private BytesMessage pending;
    private Destination replyTo;
    private String correlation;
    private volatile boolean open = true;

    private AmqpPort(Connection connection, AtomicReference<JMSException> failure, String broker,
            boolean persistent) throws JMSException {
        String queue = Amqp.ownQueue("requests");
        super(broker + "/" + queue);
        this.connection = connection;
        this.failure = failure;
        this.session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        this.consumer = session.createConsumer(session.createQueue(queue));
        this.producer = Amqp.producer(session, null, persistent);
    }

    /**
     * Connects to the broker and consumes from {@code ipclab.<pid>.requests}.
     *
     * @param endpoint {@code amqp://HOST:PORT}
     * @param persistent --delivery persistent: every answer durable
     */
    public static DatagramPort bind(String endpoint, boolean persistent) throws IOException {
        Amqp.Address address = Amqp.parse(endpoint, false);
        AtomicReference<JMSException> failure = new AtomicReference<>();
        Connection connection = Amqp.connect(address.broker(), failure);
        try {
            return new AmqpPort(connection, failure, address.broker(), persistent);
        } catch (JMSException e) {
            Amqp.closeQuietly(connection, e);
            throw Amqp.io("cannot consume from the broker at " + address.broker(), e);
        }
    }

    /**
     * Waits for the next message and remembers where its answer goes.
     *
     * @throws FrameRejectedException a body that is not bytes
     * @throws IOException when the connection fails or the port is closed (then not open)
     */
    @Override
    public int receive(ByteBuffer dst) throws IOException {
        Message message = next();
        try {
            replyTo = message.getJMSReplyTo();
            correlation = message.getJMSCorrelationID();
            pending = Amqp.bytesOf(message);
            if (pending == null) {
                throw new FrameRejectedException("body is not one data section");
            }
            return copier.copy(pending, dst);
        } catch (JMSException e) {
            throw Amqp.io("cannot read a message", e); // this message's, not the connection's
        }
    }

    /** The next message; the consumer is closed or broken if there is none (then not open). */
    private Message next() throws IOException {
        Message message;
        try {
            message = consumer.receive();
        } catch (JMSException e) {
            open = false;
            throw Amqp.io("receive from the broker failed", e);
        }
        if (message == null) {
            open = false;
            JMSException lost = failure.get();
            throw lost != null ? Amqp.io("the connection to the broker failed", lost)
                    : new IOException("the consumer of " + endpoint() + " was closed");
        }
        return message;
    }

    @Override
    public int receiveAgain(ByteBuffer dst) throws IOException {
        try {
            return copier.copy(pending, dst);
        } catch (JMSException e) {
            throw Amqp.io("cannot read a message's body", e);
        }
    }

    /** A frame is answered to its reply-to: without one it is rejected (4.7). */
    @Override
    public String answerProblem() {
        return replyTo == null ? "no reply-to" : null;
    }

    /** To the last message's reply-to, with its correlation-id as it came. */
    @Override
    public void reply(ByteBuffer frame) throws IOException {
        try {
            BytesMessage message = copier.message(session, frame.position(0));
            if (correlation != null) {
                message.setJMSCorrelationID(correlation);
            }
            producer.send(replyTo, message);
        } catch (JMSException e) {
            open = failure.get() == null;
            throw Amqp.io("send to " + replyTo + " failed", e);
        }
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /** A consumer closed by another thread makes its blocked receive return null (JMS 3.1). */
    @Override
    public void wake() throws IOException {
        try {
            consumer.close();
        } catch (JMSException e) {
            throw Amqp.io("cannot stop consuming", e);
        }
    }

    @Override
    public void close() throws IOException {
        open = false;
        try {
            connection.close();
        } catch (JMSException e) {
            throw Amqp.io("closing the broker connection failed", e);
        }
    }
}
