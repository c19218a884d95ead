package dev.ipclab.peer.transport;

import java.nio.ByteBuffer;

/**
 * What the responders over a broker with a credited stream share (Redis's lists, 4.10; NATS's
 * subjects, 4.11): the message handed out last, which {@link #receiveAgain} copies again into a
 * grown buffer; a credit per K(S) of a stream's messages, counted from its MARK; whether the
 * connection is still usable (a failed take or write ends the responder); and READY's
 * {@code broker}, the server's version.
 */
abstract class CreditedPort extends WholeMessagePort {
    static final byte[] EMPTY = new byte[0];

    /** The answers' bytes (one array per answer size, reused). */
    final RedisLink.Bytes bytes = new RedisLink.Bytes();
    private final String broker;
    /** False once the connection failed or closed: the server ends with an io error. */
    volatile boolean open = true;
    /** The message handed out last (receiveAgain copies it again). */
    private byte[] held = EMPTY;
    private int every = 1;
    /** Messages taken since the MARK: a credit per {@link #every}. */
    private long taken;

    /** @param broker READY's {@code broker}: the server's name and version */
    CreditedPort(String endpoint, String broker) {
        super(endpoint);
        this.broker = broker;
    }

    /** A server whose messages are capped below a frame's largest (NATS's max_payload). */
    CreditedPort(String endpoint, int maxPayload, int maxMessage, String broker) {
        super(endpoint, maxPayload, maxMessage);
        this.broker = broker;
    }

    @Override
    public final String broker() {
        return broker;
    }

    /** The message handed out now. */
    final void hold(byte[] message) {
        held = message;
    }

    /** The message held into dst from 0 when it fits; its size either way. */
    final int copyHeld(ByteBuffer dst) {
        if (held.length <= dst.capacity()) {
            dst.clear().put(0, held);
        }
        return held.length;
    }

    @Override
    public final int receiveAgain(ByteBuffer dst) {
        return copyHeld(dst);
    }

    /**
     * A stream's credits count from its MARK, whose answer comes next.
     *
     * @return the stream's window W(S)
     */
    final int startCredits(int messageSize) {
        int window = LibraryLimits.streamWindow(messageSize);
        every = RedisLink.creditEvery(window);
        taken = 0;
        return window;
    }

    /** Counts a stream message taken: whether a credit is due for it. */
    final boolean creditDue() {
        return ++taken % every == 0;
    }

    @Override
    public final boolean isOpen() {
        return open;
    }
}
