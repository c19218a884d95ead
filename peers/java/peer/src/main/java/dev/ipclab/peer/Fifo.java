package dev.ipclab.peer;

import dev.ipclab.linuxipc.NamedPipes;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * fifo: two named pipes, {@code req} and {@code resp}, in a directory. Both sides open req first
 * and resp second, because opening a FIFO blocks until its other end is opened too.
 */
final class Fifo {
    static final String REQUEST = "req";
    static final String RESPONSE = "resp";
    private static final int OWNER_ONLY = 0600;

    private Fifo() {}

    static StreamListener listen(String endpoint) throws IOException {
        Path dir = Path.of(Endpoints.path(endpoint));
        Path req = dir.resolve(REQUEST);
        Path resp = dir.resolve(RESPONSE);
        NamedPipes.mkfifo(req, OWNER_ONLY);
        try {
            NamedPipes.mkfifo(resp, OWNER_ONLY);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(req);
            throw e;
        }
        return new Listener(endpoint, req, resp);
    }

    static ClientLink connect(String endpoint) throws IOException {
        Path dir = Path.of(Endpoints.path(endpoint));
        // No CREATE option: a missing FIFO must fail, not become a regular file.
        FileChannel req = FileChannel.open(dir.resolve(REQUEST), StandardOpenOption.WRITE);
        try {
            FileChannel resp = FileChannel.open(dir.resolve(RESPONSE), StandardOpenOption.READ);
            return new StreamLink(new ChannelConnection(resp, req));
        } catch (IOException | RuntimeException e) {
            req.close();
            throw e;
        }
    }

    /** Each client is one opening of both FIFOs; at its end of stream they are opened again. */
    private static final class Listener implements StreamListener {
        private final String endpoint;
        private final Path req;
        private final Path resp;
        private volatile boolean stopped;

        Listener(String endpoint, Path req, Path resp) {
            this.endpoint = endpoint;
            this.req = req;
            this.resp = resp;
        }

        @Override
        public String endpoint() {
            return endpoint;
        }

        @Override
        public StreamConnection accept() throws IOException {
            if (stopped) {
                return null;
            }
            FileChannel in = FileChannel.open(req, StandardOpenOption.READ);
            try {
                FileChannel out = FileChannel.open(resp, StandardOpenOption.WRITE);
                return new ChannelConnection(in, out);
            } catch (IOException | RuntimeException e) {
                in.close();
                throw e;
            }
        }

        /**
         * A thread blocked opening a FIFO cannot be woken from Java; it gives up at the next
         * accept, after one more client (a process that stops the server exits instead).
         */
        @Override
        public void stop() {
            stopped = true;
        }

        @Override
        public void close() throws IOException {
            stopped = true;
            try {
                Files.deleteIfExists(req);
            } finally {
                Files.deleteIfExists(resp);
            }
        }
    }
}
