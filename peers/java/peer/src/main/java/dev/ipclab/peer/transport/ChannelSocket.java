package dev.ipclab.peer.transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A connected Unix domain stream socket as a {@link java.net.Socket}, for a client library that
 * takes only Sockets (Jedis's JedisSocketFactory, redis-uds: 4.10). The JDK's Socket speaks TCP
 * alone and a Unix SocketChannel has no {@code socket()}, so this carries the channel: its
 * blocking streams, the read timeout, the state queries and close, which is all such a library
 * asks of a Socket; nothing of the base class is used (it never makes a descriptor of its own).
 *
 * <p>The read timeout ({@link #setSoTimeout}) is kept the way this peer keeps one on its other
 * channels, by a {@link ReceiveWatchdog}: a read blocked for longer has the channel closed under
 * it and fails with {@link SocketTimeoutException}, as a TCP socket's read does; a read costs no
 * system call more than it would without a timeout.
 */
final class ChannelSocket extends Socket {
    private final SocketChannel channel;
    private final InputStream in;
    private final OutputStream out;
    private volatile ReceiveWatchdog watchdog;
    private int timeoutMillis;

    private ChannelSocket(SocketChannel channel) {
        this.channel = channel;
        this.in = new TimedInput(Channels.newInputStream(channel));
        this.out = Channels.newOutputStream(channel);
    }

    /** Connects to the socket at path; reads time out after timeoutMillis (0: never). */
    static ChannelSocket connect(Path path, int timeoutMillis) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(path));
            ChannelSocket socket = new ChannelSocket(channel);
            socket.setSoTimeout(timeoutMillis);
            return socket;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    @Override
    public InputStream getInputStream() {
        return in;
    }

    @Override
    public OutputStream getOutputStream() {
        return out;
    }

    /** A new timeout starts a watchdog of its own (0: none); the old one stops. */
    @Override
    public synchronized void setSoTimeout(int timeout) {
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout < 0");
        }
        if (timeout == timeoutMillis && (timeout == 0) == (watchdog == null)) {
            return;
        }
        ReceiveWatchdog old = watchdog;
        watchdog = timeout == 0 ? null
                : new ReceiveWatchdog(TimeUnit.MILLISECONDS.toNanos(timeout), channel);
        timeoutMillis = timeout;
        if (old != null) {
            old.close();
        }
    }

    @Override
    public synchronized int getSoTimeout() {
        return timeoutMillis;
    }

    @Override
    public boolean isConnected() {
        return channel.isConnected();
    }

    @Override
    public boolean isBound() {
        return true; // connected, so bound (to an unnamed address)
    }

    @Override
    public boolean isClosed() {
        return !channel.isOpen();
    }

    @Override
    public boolean isInputShutdown() {
        return false; // never shut down apart from close
    }

    @Override
    public boolean isOutputShutdown() {
        return false;
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        try {
            return channel.getRemoteAddress();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        try {
            return channel.getLocalAddress();
        } catch (IOException e) {
            return null;
        }
    }

    /** Safe from any thread: a read blocked in another fails at once. */
    @Override
    public synchronized void close() throws IOException {
        if (watchdog != null) {
            watchdog.close();
        }
        channel.close();
    }

    /** The channel's stream, each read watched while a timeout is set. */
    private final class TimedInput extends InputStream {
        private final InputStream stream;

        TimedInput(InputStream stream) {
            this.stream = stream;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            ReceiveWatchdog dog = watchdog;
            if (dog == null) {
                return stream.read(b, off, len);
            }
            dog.enter();
            try {
                return stream.read(b, off, len);
            } catch (AsynchronousCloseException e) {
                if (dog.fired()) {
                    throw new SocketTimeoutException("no reply within " + timeoutMillis + " ms");
                }
                throw e;
            } finally {
                dog.exit();
            }
        }

        @Override
        public int available() throws IOException {
            return stream.available();
        }
    }
}
