package dev.ipclab.peer.transport;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * pipe: two anonymous pipes inherited from the orchestrator, named {@code fd:R,W}. Java has no
 * API to wrap a raw descriptor, so both ends are reopened through /proc/self/fd.
 */
public final class Pipe {
    private Pipe() {}

    public static StreamListener listen(String endpoint) throws IOException {
        return new SingleConnection(endpoint, open(endpoint));
    }

    public static ClientLink connect(String endpoint) throws IOException {
        return new StreamLink(open(endpoint));
    }

    private static ChannelConnection open(String endpoint) throws IOException {
        Endpoints.FdPair fds = Endpoints.fdPair(endpoint);
        FileChannel in = FileChannel.open(procFd(fds.read()), StandardOpenOption.READ);
        try {
            return new ChannelConnection(in,
                    FileChannel.open(procFd(fds.write()), StandardOpenOption.WRITE));
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    private static Path procFd(int fd) {
        return Path.of("/proc/self/fd/" + fd);
    }

    /** The server side: its one client is the pair of pipes; end of stream ends the server. */
    private static final class SingleConnection extends StoppableListener {
        private ChannelConnection connection;

        SingleConnection(String endpoint, ChannelConnection connection) {
            super(endpoint);
            this.connection = connection;
        }

        /** The pipes, once; null after that (and after a stop or close). */
        @Override
        synchronized StreamConnection next() {
            ChannelConnection first = connection;
            connection = null;
            return first;
        }

        @Override
        public boolean singleClient() {
            return true;
        }

        @Override
        public synchronized void stop() throws IOException {
            stopped = true;
            close();
        }

        /**
         * Closes the pipes only if they were never handed out: once accepted they belong to the
         * server loop, and a shutdown hook must not wait for a read blocked on them.
         */
        @Override
        public synchronized void close() throws IOException {
            if (connection != null) {
                connection.close();
                connection = null;
            }
        }
    }
}
