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
        Path path = Path.of(Endpoints.path(endpoint));
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new FileAlreadyExistsException(endpoint, null, "path exists");
        }
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            bindOwnerOnly(server, UnixDomainSocketAddress.of(path));
            return SocketListener.of(server, endpoint, path, false);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    public static ClientLink connect(String endpoint) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(Endpoints.path(endpoint)));
            return new StreamLink(new ChannelConnection(channel, channel));
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

    private static void bindOwnerOnly(ServerSocketChannel server, UnixDomainSocketAddress address)
            throws IOException {
        // umask is process-wide: this runs before the server has threads that create files.
        int previous = NamedPipes.umask(OWNER_ONLY_UMASK);
        try {
            server.bind(address, Endpoints.LISTEN_BACKLOG);
        } finally {
            NamedPipes.umask(previous);
        }
    }
}
