package dev.ipclab.peer.transport;

import dev.ipclab.linuxipc.NamedPipes;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** uds: a Unix domain stream socket at a path; the server creates it 0600 and removes it. */
public final class Uds {
    /** Clears group and other bits, so bind creates the socket file as 0600 with no window. */
    private static final int OWNER_ONLY_UMASK = 0177;

    private Uds() {}

    public static StreamListener listen(String endpoint) throws IOException {
        return listen(endpoint, Endpoints.LISTEN_BACKLOG);
    }

    /** @param backlog the listen() backlog (--backlog; the kernel caps it at somaxconn) */
    public static StreamListener listen(String endpoint, int backlog) throws IOException {
        ServerSocketChannel server = bind(endpoint, backlog);
        try {
            return SocketListener.of(server, endpoint, socketFile(endpoint), false);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /**
     * A listening socket at the path, created 0600; refused (io error) if the path exists. The
     * caller removes the file ({@link #socketFile}) when it ends: closing the channel does not.
     */
    public static ServerSocketChannel bind(String endpoint, int backlog) throws IOException {
        Path path = socketFile(endpoint);
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new FileAlreadyExistsException(endpoint, null, "path exists");
        }
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            bindOwnerOnly(server, UnixDomainSocketAddress.of(path), backlog);
            return server;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    public static Path socketFile(String endpoint) {
        return Path.of(Endpoints.path(endpoint));
    }

    public static ClientLink connect(String endpoint) throws IOException {
        return connect(endpoint, 0);
    }

    /**
     * @param ioTimeoutNanos above 0: a receive that waits longer fails with
     *     {@link ReceiveTimeoutException} (a watchdog thread closes the socket under it, as tcp's)
     */
    public static ClientLink connect(String endpoint, long ioTimeoutNanos) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(Endpoints.path(endpoint)));
            return new StreamLink(new ChannelConnection(channel, channel), ioTimeoutNanos > 0
                    ? new ReceiveWatchdog(ioTimeoutNanos, channel) : null);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** short (section 11.2): a new socket per round trip, made before the clock. */
    public static Dial dialer(String endpoint) {
        UnixDomainSocketAddress address = UnixDomainSocketAddress.of(Endpoints.path(endpoint));
        return new PreparedDial(address, index -> SocketChannel.open(StandardProtocolFamily.UNIX));
    }

    private static void bindOwnerOnly(ServerSocketChannel server, UnixDomainSocketAddress address,
            int backlog) throws IOException {
        // umask is process-wide: this runs before the server has threads that create files.
        int previous = NamedPipes.umask(OWNER_ONLY_UMASK);
        try {
            server.bind(address, backlog);
        } finally {
            NamedPipes.umask(previous);
        }
    }
}
