package dev.ipclab.peer.transport;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * tcp: a loopback (or any given host) stream socket with TCP_NODELAY on both sides, or, with
 * {@code --nodelay off}, with Nagle's algorithm left on (TCP_NODELAY set to false).
 */
public final class Tcp {
    private Tcp() {}

    /** @param nodelay TCP_NODELAY on every accepted socket; false leaves Nagle on */
    public static StreamListener listen(String endpoint, boolean nodelay) throws IOException {
        return listen(endpoint, nodelay, Endpoints.LISTEN_BACKLOG);
    }

    /** @param backlog the listen() backlog (--backlog; the kernel caps it at somaxconn) */
    public static StreamListener listen(String endpoint, boolean nodelay, int backlog)
            throws IOException {
        InetSocketAddress address = Endpoints.hostPort(endpoint).resolve();
        ServerSocketChannel server = ServerSocketChannel.open(family(address));
        try {
            server.bind(address, backlog);
            InetSocketAddress bound = (InetSocketAddress) server.getLocalAddress();
            return SocketListener.of(server, Endpoints.format(bound), null, nodelay);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    public static ClientLink connect(String endpoint, boolean nodelay) throws IOException {
        return connect(endpoint, nodelay, 0);
    }

    /**
     * @param ioTimeoutNanos above 0: a receive that waits longer fails with
     *     {@link ReceiveTimeoutException} (a watchdog thread closes the socket under it)
     */
    public static ClientLink connect(String endpoint, boolean nodelay, long ioTimeoutNanos)
            throws IOException {
        InetSocketAddress address = Endpoints.hostPort(endpoint).resolve();
        SocketChannel channel = SocketChannel.open(family(address));
        try {
            configure(channel, nodelay);
            channel.connect(address);
            return new StreamLink(new ChannelConnection(channel, channel), ioTimeoutNanos > 0
                    ? new ReceiveWatchdog(ioTimeoutNanos, channel) : null);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * short (section 11.2): a new socket per round trip. Towards 127.0.0.1, each connection is
     * bound first to its own source address 127.1.b.c, port 0, so that TIME_WAIT, which stays
     * with the client that closes first, spreads over 65280 source addresses instead of
     * exhausting one address's ephemeral ports. The JDK has no IP_BIND_ADDRESS_NO_PORT, so bind
     * picks the port; and its native bind refuses every 127.x.y.255 on Linux (EADDRNOTAVAIL
     * without a system call), so c runs over 0 … 254 (see {@link #source}). Socket and bind are
     * made before the clock ({@link Dial#prepare}); the sample is connect, exchange, close.
     */
    public static Dial dialer(String endpoint, boolean nodelay) throws IOException {
        return dialer(endpoint, nodelay, true);
    }

    /**
     * @param rotateSources false ({@code --source one}, as the blog's client): no bind before
     *     connect, every connection from the kernel's choice (127.0.0.1, an ephemeral port);
     *     the socket is still made before the clock
     */
    public static Dial dialer(String endpoint, boolean nodelay, boolean rotateSources)
            throws IOException {
        InetSocketAddress address = Endpoints.hostPort(endpoint).resolve();
        StandardProtocolFamily family = family(address);
        boolean rotate = rotateSources && address.getAddress().equals(LOCALHOST);
        return new PreparedDial(address, index -> {
            SocketChannel channel = SocketChannel.open(family);
            try {
                configure(channel, nodelay);
                if (rotate) {
                    channel.bind(source(index));
                }
                return channel;
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
        });
    }

    private static final InetAddress LOCALHOST = InetAddress.ofLiteral("127.0.0.1");

    /**
     * Connection i's source, port 0: with k = i mod 65280, 127.1.b.c for b = k / 255 and
     * c = k mod 255 (the contract's b = i / 256 mod 256, c = i mod 256 less the .255 addresses
     * the JDK cannot bind).
     */
    static InetSocketAddress source(int i) throws IOException {
        int k = Integer.remainderUnsigned(i, 255 * 256);
        return new InetSocketAddress(InetAddress.getByAddress(
                new byte[] {127, 1, (byte) (k / 255), (byte) (k % 255)}), 0);
    }

    /**
     * Small frames must leave at once, not wait for Nagle's algorithm; unless --nodelay off asks
     * for Nagle (set to false explicitly, which is also the kernel's default).
     */
    static void configure(SocketChannel channel, boolean nodelay) throws IOException {
        channel.setOption(StandardSocketOptions.TCP_NODELAY, nodelay);
    }

    public static StandardProtocolFamily family(InetSocketAddress address) throws IOException {
        if (address.isUnresolved()) {
            throw new IOException("cannot resolve host " + address.getHostString());
        }
        return address.getAddress() instanceof Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
    }
}
