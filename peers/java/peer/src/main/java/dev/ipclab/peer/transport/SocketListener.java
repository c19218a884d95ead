package dev.ipclab.peer.transport;

import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/** A listening stream socket (tcp or uds) that hands out one accepted connection at a time. */
final class SocketListener {
    private SocketListener() {}

    /**
     * @param socketFile the uds file this listener created and must remove, or null for tcp
     * @param nodelay tcp: TCP_NODELAY on accepted sockets (false: Nagle stays on)
     */
    static StreamListener of(ServerSocketChannel server, String endpoint, Path socketFile,
            boolean nodelay) {
        boolean tcp = socketFile == null;
        // Closing the channel is what wakes a thread blocked in accept().
        return StoppableListener.of(endpoint, () -> accept(server, tcp, nodelay), server::close,
                () -> close(server, socketFile));
    }

    private static StreamConnection accept(ServerSocketChannel server, boolean tcp,
            boolean nodelay) throws IOException {
        SocketChannel client = server.accept();
        if (tcp) {
            Tcp.configure(client, nodelay);
        }
        return new ChannelConnection(client, client);
    }

    /**
     * The file first: on SIGTERM this runs in a shutdown hook, and removing it is what matters;
     * closing does not wait for the thread blocked in accept().
     */
    private static void close(ServerSocketChannel server, Path socketFile) throws IOException {
        try {
            if (socketFile != null) {
                Files.deleteIfExists(socketFile);
            }
        } finally {
            server.close();
        }
    }
}
