package dev.ipclab.peer.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;

/** The udp client: a connected datagram socket, one datagram per frame, receives time out. */
final class DatagramLink implements ClientLink {
    private final DatagramChannel channel;
    private final ReceiveWatchdog watchdog;

    DatagramLink(DatagramChannel channel, long ioTimeoutNanos) {
        this.channel = channel;
        this.watchdog = new ReceiveWatchdog(ioTimeoutNanos, channel);
    }

    @Override
    public void send(ByteBuffer frame) throws IOException {
        channel.write(frame);
    }

    @Override
    public int receive(ByteBuffer dst, int frameSize) throws IOException {
        dst.clear();
        watchdog.enter();
        try {
            channel.read(dst);
        } catch (AsynchronousCloseException e) {
            if (watchdog.fired()) {
                throw new ReceiveTimeoutException("no datagram within --io-timeout ("
                        + watchdog.timeoutNanos() / 1e9 + " s)");
            }
            throw e;
        } finally {
            watchdog.exit();
        }
        return dst.position();
    }

    /** Room for the largest possible datagram, so that an oversized one is seen, not cut. */
    @Override
    public int receiveCapacity(int frameSize) {
        return Math.max(frameSize, Udp.MAX_DATAGRAM + 1);
    }

    @Override
    public boolean lossy() {
        return true;
    }

    /**
     * A selector for this one wait (MARK, END: not per message), the channel non-blocking only
     * meanwhile: the stream's sends must block when the socket buffer is full, not fail.
     */
    @Override
    public int receiveWithin(ByteBuffer dst, long timeoutNanos) throws IOException {
        dst.clear();
        Selector selector = Selector.open();
        try {
            channel.configureBlocking(false);
            channel.register(selector, SelectionKey.OP_READ);
            if (selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos))) == 0) {
                return -1;
            }
            channel.read(dst);
            return dst.position();
        } finally {
            selector.close();
            channel.configureBlocking(true);
        }
    }

    @Override
    public void close() throws IOException {
        watchdog.close();
        channel.close();
    }
}
