package dev.ipclab.peer.transport;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The server's side of load over a message queue (PROTOCOL.md 11.5.5): one request queue that
 * every client connection shares, each REQUEST or END one message, and a reply address per
 * connection. Each of the server's threads receives and answers through a {@link Receiver} of
 * its own (its own native buffers), so they share nothing but the kernel objects.
 */
public interface LoadQueue extends Closeable {
    /** One thread's receive and send buffers. */
    interface Receiver {
        /**
         * Waits for the next message on the request queue; its bytes are then in
         * {@link #received()} until the next receive.
         *
         * @return the message's size
         */
        int receive() throws IOException;

        /** The last message's bytes, from 0 (absolute reads; the view is never moved). */
        ByteBuffer received();

        /**
         * Sends a whole RESPONSE or END_ACK [position, limit) to connection c's reply address,
         * cut into messages as 4.1 says.
         *
         * @throws ReplyDroppedException the answer could not be delivered and was dropped; the
         *     server goes on
         * @throws IOException the queues failed (removed): the server cannot go on
         */
        void reply(int connection, ByteBuffer frame) throws IOException;

        /** After connection c's END_ACK: whatever the server kept open for it is released. */
        default void ended(int connection) {}
    }

    /** The endpoint for READY (11.5.5). */
    String endpoint();

    /** A new thread's buffers. */
    Receiver receiver();

    /** Makes up to n threads blocked in {@link Receiver#receive()} return (a stop). */
    void wake(int n);

    /** Removes every kernel object the server made or opened (4.1, 11.5.5). Called once. */
    @Override
    void close() throws IOException;
}
