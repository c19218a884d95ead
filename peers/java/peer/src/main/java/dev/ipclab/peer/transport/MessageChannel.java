package dev.ipclab.peer.transport;

import dev.ipclab.linuxipc.LinuxIpcException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One side of a message mechanism (PROTOCOL.md section 4.1): sends messages of at most
 * {@link #maxMessage()} bytes in its own direction and receives those of the other. Buffers are
 * native and made once, so sending and receiving allocate nothing.
 */
interface MessageChannel extends Closeable {
    /** M: the largest message. */
    int maxMessage();

    /** Sends src[offset, offset + length), length at most M, as one message. */
    void send(ByteBuffer src, int offset, int length) throws IOException;

    /**
     * Waits for the next message of the receiving direction; its bytes are then in
     * {@link #received()} from 0 until {@link #release()}.
     *
     * @return the message's length
     * @throws ReceiveTimeoutException when a timed channel waited longer than its timeout
     */
    int receive() throws IOException;

    /** The received message's bytes (absolute reads from 0; the view is never moved). */
    ByteBuffer received();

    /** Gives the received message's buffer back (shm: V(EMPTY)); a no-op for queues. */
    default void release() throws IOException {}

    /**
     * Makes a server's blocked receive return (the stream then ends). Default: nothing, a
     * removal of the kernel object wakes the receiver instead.
     */
    default void wake() throws IOException {}

    /**
     * Client: closes its handles. Server: removes every kernel object it made. Called once, by
     * {@link MessageListener} or the client's {@link MessageStream}.
     */
    @Override
    void close() throws IOException;

    /** The removal of one kernel object, which may already be gone. */
    interface Removal {
        void run() throws LinuxIpcException;
    }

    /**
     * Runs every removal even if one fails; an object already gone (ENOENT, EINVAL, EIDRM: the
     * orchestrator or a second exit path removed it) is no failure.
     *
     * @throws LinuxIpcException the first other failure
     */
    static void removeAll(Removal... removals) throws LinuxIpcException {
        LinuxIpcException first = null;
        for (Removal removal : removals) {
            try {
                removal.run();
            } catch (LinuxIpcException e) {
                boolean gone = e.errno() == LinuxIpcException.ENOENT
                        || e.errno() == LinuxIpcException.EINVAL || e.errno() == LinuxIpcException.EIDRM;
                if (!gone && first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
