package dev.ipclab.peer.transport;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;

/**
 * A client link over a stream: a frame is complete once all its bytes have arrived. With a
 * {@link ReceiveWatchdog} (a load client, 11.5.3), a receive longer than --io-timeout fails with
 * {@link ReceiveTimeoutException}.
 */
final class StreamLink implements ClientLink {
    private final StreamConnection connection;
    private final ReceiveWatchdog watchdog;

    StreamLink(StreamConnection connection) {
        this(connection, null);
    }

    /** @param watchdog closes the connection under a receive that takes too long; may be null */
    StreamLink(StreamConnection connection, ReceiveWatchdog watchdog) {
        this.connection = connection;
        this.watchdog = watchdog;
    }

    @Override
    public void send(ByteBuffer frame) throws IOException {
        connection.write(frame);
    }

    @Override
    public int receive(ByteBuffer dst, int frameSize) throws IOException {
        if (watchdog == null) {
            return receiveWhole(dst, frameSize);
        }
        watchdog.enter();
        try {
            return receiveWhole(dst, frameSize);
        } catch (AsynchronousCloseException e) {
            if (watchdog.fired()) {
                throw new ReceiveTimeoutException("no whole response within --io-timeout ("
                        + watchdog.timeoutNanos() / 1e9 + " s)");
            }
            throw e;
        } finally {
            watchdog.exit();
        }
    }

    private int receiveWhole(ByteBuffer dst, int frameSize) throws IOException {
        dst.clear().limit(frameSize);
        // One read asks for the whole remaining frame, so large frames need few calls.
        while (dst.hasRemaining()) {
            if (connection.read(dst) < 0) {
                throw new EOFException("end of stream after " + dst.position() + " of "
                        + frameSize + " bytes of a frame");
            }
        }
        return frameSize;
    }

    @Override
    public int receiveCapacity(int frameSize) {
        return frameSize;
    }

    @Override
    public void close() throws IOException {
        if (watchdog != null) {
            watchdog.close();
        }
        connection.close();
    }
}
