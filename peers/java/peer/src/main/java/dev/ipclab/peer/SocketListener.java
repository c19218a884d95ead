package dev.ipclab.peer;

import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/** A listening stream socket (tcp or uds) that hands out one accepted connection at a time. */
final class SocketListener implements StreamListener {
    private final ServerSocketChannel server;
    private final String endpoint;
    private final Path socketFile;
    private final boolean tcp;

    /**
     * @param socketFile the uds file this listener created and must remove, or null for tcp
     */
    SocketListener(ServerSocketChannel server, String endpoint, Path socketFile) {
        this.server = server;
        this.endpoint = endpoint;
        this.socketFile = socketFile;
        this.tcp = socketFile == null;
    }

    @Override
    public String endpoint() {
        return endpoint;
    }

    @Override
    public StreamConnection accept() throws IOException {
        SocketChannel client = server.accept();
        if (tcp) {
            Tcp.configure(client);
        }
        return new ChannelConnection(client, client);
    }

    @Override
    public void stop() throws IOException {
        // Closing the channel is what wakes a thread blocked in accept().
        server.close();
    }

    @Override
    public void close() throws IOException {
        // The file first: on SIGTERM this runs in a shutdown hook, and removing it is what
        // matters; closing does not wait for the thread blocked in accept().
        try {
            if (socketFile != null) {
                Files.deleteIfExists(socketFile);
            }
        } finally {
            server.close();
        }
    }
}
