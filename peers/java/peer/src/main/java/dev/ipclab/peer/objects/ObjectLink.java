package dev.ipclab.peer.objects;

import dev.ipclab.linuxipc.MessageQueueInputStream;
import dev.ipclab.linuxipc.MessageQueueOutputStream;
import dev.ipclab.linuxipc.SharedMemoryInputStream;
import dev.ipclab.linuxipc.SharedMemoryOutputStream;
import dev.ipclab.linuxipc.SysVMessageQueue;
import dev.ipclab.linuxipc.SysVSemaphoreSet;
import dev.ipclab.linuxipc.SysVSharedMemory;
import dev.ipclab.peer.transport.Endpoints;
import dev.ipclab.peer.transport.SysVKeys;
import java.io.Closeable;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Set;

/**
 * A client's two byte streams for {@code --payload object}, as the published benchmark had them
 * (PROTOCOL.md 4.6): the socket's streams (tcp), the FIFO files' streams (fifo), the library's
 * message queue streams (sysv-mq: type 1 out, type 2 in) and shared memory streams (sysv-shm:
 * the slots and semaphores of section 4.1). Closing releases the handles; it sends nothing (the
 * library streams' end-of-stream message would be bytes beyond the object streams).
 */
record ObjectLink(InputStream in, OutputStream out, Closeable handles) implements Closeable {
    /** The mechanisms --payload object runs over. */
    static final Set<String> MECHANISMS = Set.of("tcp", "fifo", "sysv-mq", "sysv-shm");

    /** Section 4.1's sysv-shm layout: two slots of a u64 length and 1 MiB each. */
    private static final int SLOT = 1 << 20;
    private static final long SECOND_SLOT = 8L + SLOT;

    static ObjectLink open(String mechanism, String endpoint, long ioTimeoutNanos, boolean nodelay)
            throws IOException {
        return switch (mechanism) {
            case "tcp" -> tcp(endpoint, ioTimeoutNanos, nodelay);
            case "fifo" -> fifo(Path.of(endpoint));
            case "sysv-mq" -> messageQueue(SysVKeys.parse(endpoint));
            case "sysv-shm" -> sharedMemory(SysVKeys.parse(endpoint));
            default -> throw new IllegalArgumentException("no object link over " + mechanism);
        };
    }

    @Override
    public void close() throws IOException {
        handles.close();
    }

    /** SO_TIMEOUT bounds each read by --io-timeout, as the frame client's socket does. */
    private static ObjectLink tcp(String endpoint, long ioTimeoutNanos, boolean nodelay)
            throws IOException {
        Endpoints.HostPort at = Endpoints.hostPort(endpoint);
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(nodelay);
            socket.connect(new InetSocketAddress(at.host(), at.port()));
            socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, ioTimeoutNanos / 1_000_000)));
            return new ObjectLink(socket.getInputStream(), socket.getOutputStream(), socket);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** req for writing first, then resp for reading: the order of section 4 (no deadlock). */
    private static ObjectLink fifo(Path dir) throws IOException {
        FileOutputStream req = new FileOutputStream(dir.resolve("req").toFile());
        try {
            FileInputStream resp = new FileInputStream(dir.resolve("resp").toFile());
            return new ObjectLink(resp, req, () -> {
                try (req; resp) {
                    // both closed, the request side first
                }
            });
        } catch (IOException | RuntimeException e) {
            req.close();
            throw e;
        }
    }

    private static ObjectLink messageQueue(int key) throws IOException {
        SysVMessageQueue queue = SysVMessageQueue.open(key);
        // Only the input is closed (its buffer freed): closing the output would send the
        // library's end-of-stream message; its buffer goes with the process.
        MessageQueueInputStream in = new MessageQueueInputStream(queue, 2);
        return new ObjectLink(in, new MessageQueueOutputStream(queue, 1), in);
    }

    private static ObjectLink sharedMemory(int key) throws IOException {
        SysVSharedMemory segment = SysVSharedMemory.open(key);
        SysVSemaphoreSet semaphores = SysVSemaphoreSet.open(key, 4);
        var memory = segment.attach(false);
        return new ObjectLink(
                new SharedMemoryInputStream(memory, semaphores, SECOND_SLOT, SLOT, 2, 3),
                new SharedMemoryOutputStream(memory, semaphores, 0, SLOT, 0, 1), segment::detach);
    }
}
