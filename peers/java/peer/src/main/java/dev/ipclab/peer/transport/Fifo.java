package dev.ipclab.peer.transport;

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
public final class Fifo {
    public static final String REQUEST = "req";
    public static final String RESPONSE = "resp";
    private static final int OWNER_ONLY = 0600;

    private Fifo() {}

    public static StreamListener listen(String endpoint) throws IOException {
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
        // Each client is one opening of both FIFOs; at its end of stream they are opened again.
        // A thread blocked opening a FIFO cannot be woken from Java: after a stop it gives up at
        // the next accept, after one more client (a process that stops the server exits instead).
        return StoppableListener.of(endpoint, () -> accept(req, resp), () -> { },
                () -> remove(req, resp));
    }

    public static ClientLink connect(String endpoint) throws IOException {
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

    /** Opens req for reading, then resp for writing: blocks until a client opens both. */
    private static StreamConnection accept(Path req, Path resp) throws IOException {
        FileChannel in = FileChannel.open(req, StandardOpenOption.READ);
        try {
            FileChannel out = FileChannel.open(resp, StandardOpenOption.WRITE);
            return new ChannelConnection(in, out);
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    private static void remove(Path req, Path resp) throws IOException {
        try {
            Files.deleteIfExists(req);
        } finally {
            Files.deleteIfExists(resp);
        }
    }
}
