package dev.ipclab.peer.burst;

import dev.ipclab.peer.transport.Endpoints;
import dev.ipclab.peer.transport.Tcp;
import dev.ipclab.peer.transport.Uds;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;

/**
 * A burst or load server's listening socket (PROTOCOL.md 4, 11.4.2, 11.5.1): the models accept
 * from any stream {@link ServerSocketChannel}, tcp or uds alike, so only its making differs.
 *
 * @param endpoint READY's endpoint: tcp's address actually bound, uds's path
 * @param socketFile the uds file the server removes when it ends; null for tcp
 */
public record Listening(ServerSocketChannel channel, String endpoint, Path socketFile) {
    /** How a mechanism listens for a burst or load server. */
    public interface Maker {
        Listening listen(String endpoint, int backlog) throws IOException;
    }

    public static Listening tcp(String endpoint, int backlog) throws IOException {
        InetSocketAddress address = Endpoints.hostPort(endpoint).resolve();
        ServerSocketChannel channel = ServerSocketChannel.open(Tcp.family(address));
        try {
            channel.bind(address, backlog);
            return new Listening(channel,
                    Endpoints.format((InetSocketAddress) channel.getLocalAddress()), null);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** The path must not exist; the socket file is made 0600 ({@link Uds#bind}). */
    public static Listening uds(String endpoint, int backlog) throws IOException {
        return new Listening(Uds.bind(endpoint, backlog), endpoint, Uds.socketFile(endpoint));
    }
}
