package dev.ipclab.peer.transport;

import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.UnixDatagramSocket;
import dev.ipclab.linuxipc.UnixSocketAddress;
import dev.ipclab.peer.frame.Frame;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * uds-dgram (PROTOCOL.md section 4.5): a Unix domain datagram socket through linuxipc's
 * {@link UnixDatagramSocket}, one datagram per frame. Both sides raise their buffers; the limit
 * is the kernel's, {@code min(SO_SNDBUF - 32, 4 MiB) - 24} payload bytes. The server binds the
 * path 0600 and answers each datagram's source; a client binds {@code PATH.<pid>} 0600 so that
 * it has an address to be answered at, connects to the server, and removes its path at the end.
 */
public final class UdsDgram {
    private static final int OWNER_ONLY = 0600;

    private UdsDgram() {}

    /** Measured once, on a probe socket. */
    private static final class Limit {
        static final int MAX_PAYLOAD = probe();

        private static int probe() {
            try {
                return UnixDatagramSocket.largestDatagram() - Frame.HEADER_SIZE;
            } catch (LinuxIpcException e) {
                throw new IllegalStateException("cannot measure the uds-dgram limit: " + e.getMessage(), e);
            }
        }
    }

    /** The largest payload on this machine (capabilities' max_payload). */
    public static int maxPayload() {
        return Limit.MAX_PAYLOAD;
    }

    /** D, the largest datagram on this machine: a stream's largest message (section 11.1). */
    public static int maxDatagram() {
        return Limit.MAX_PAYLOAD + Frame.HEADER_SIZE;
    }

    public static DatagramPort bind(String endpoint) throws IOException {
        Path path = Path.of(Endpoints.path(endpoint));
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new FileAlreadyExistsException(endpoint, null, "path exists");
        }
        UnixDatagramSocket socket = UnixDatagramSocket.open();
        try {
            int limit = socket.raiseBuffers() - Frame.HEADER_SIZE;
            socket.bind(path, OWNER_ONLY);
            return new Port(socket, endpoint, path, limit);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    public static ClientLink connect(String endpoint, long ioTimeoutNanos) throws IOException {
        Path server = Path.of(Endpoints.path(endpoint));
        Path own = Path.of(endpoint + "." + ProcessHandle.current().pid());
        UnixDatagramSocket socket = UnixDatagramSocket.open();
        boolean bound = false;
        try {
            int limit = socket.raiseBuffers() - Frame.HEADER_SIZE;
            socket.setReceiveTimeout(ioTimeoutNanos);
            socket.bind(own, OWNER_ONLY);
            bound = true;
            socket.connect(server);
            return new Link(socket, own, limit, ioTimeoutNanos, new Segments());
        } catch (IOException | RuntimeException e) {
            try {
                release(socket, bound ? own : null);
            } catch (LinuxIpcException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** Closes the socket, then removes its path (if any) even if closing failed. */
    private static void release(UnixDatagramSocket socket, Path path) throws LinuxIpcException {
        try {
            socket.close();
        } finally {
            if (path != null) {
                UnixDatagramSocket.unlink(path);
            }
        }
    }

    /** A send the kernel refuses although it is within our limit is an io error naming the size. */
    private static void send(UnixDatagramSocket socket, Segments segments, ByteBuffer frame,
            UnixSocketAddress to) throws IOException {
        try {
            if (to == null) {
                socket.send(segments.of(frame), frame.limit());
            } else {
                socket.sendTo(segments.of(frame), frame.limit(), to);
            }
        } catch (LinuxIpcException e) {
            if (e.errno() == LinuxIpcException.EMSGSIZE || e.errno() == LinuxIpcException.ENOBUFS) {
                throw new IOException("the kernel refuses a datagram of " + frame.limit()
                        + " bytes: " + e.getMessage(), e);
            }
            throw e;
        }
    }

    /** The server's socket, bound at its path. */
    private record Port(UnixDatagramSocket socket, String endpoint, Path path, int maxPayload,
            UnixSocketAddress from, Segments segments, AtomicBoolean open)
            implements DatagramPort {
        Port(UnixDatagramSocket socket, String endpoint, Path path, int maxPayload) {
            this(socket, endpoint, path, maxPayload, new UnixSocketAddress(), new Segments(),
                    new AtomicBoolean(true));
        }

        /** D, the whole datagram (section 4.5). */
        @Override
        public int maxMessage() {
            return Frame.HEADER_SIZE + maxPayload;
        }

        @Override
        public int receiveCapacity() {
            return Frame.HEADER_SIZE + maxPayload;
        }

        @Override
        public int receive(ByteBuffer dst) throws IOException {
            return (int) Math.min(Integer.MAX_VALUE, socket.receiveFrom(segments.of(dst), from));
        }

        /** The client's path (allocates: asked at END and for a corrupted request only). */
        @Override
        public Object source() {
            return from.path();
        }

        @Override
        public void reply(ByteBuffer frame) throws IOException {
            send(socket, segments, frame, from);
        }

        @Override
        public boolean isOpen() {
            return open.get();
        }

        /** shutdown makes a blocked recvfrom return at once, which closing would not. */
        @Override
        public void wake() throws IOException {
            socket.shutdown();
        }

        @Override
        public void close() throws IOException {
            if (open.compareAndSet(true, false)) {
                release(socket, path);
            }
        }
    }

    /** The client: a bound, connected socket; receives time out through SO_RCVTIMEO. */
    private record Link(UnixDatagramSocket socket, Path path, int maxPayload, long ioTimeoutNanos,
            Segments segments) implements ClientLink {
        @Override
        public void send(ByteBuffer frame) throws IOException {
            UdsDgram.send(socket, segments, frame, null);
        }

        @Override
        public int receive(ByteBuffer dst, int frameSize) throws IOException {
            long n = socket.receive(segments.of(dst));
            if (n < 0) {
                throw new ReceiveTimeoutException("no datagram within --io-timeout ("
                        + ioTimeoutNanos / 1e9 + " s)");
            }
            return (int) Math.min(Integer.MAX_VALUE, n);
        }

        /** 24 + our limit (section 4.5); MSG_TRUNC reports a longer datagram's real size. */
        @Override
        public int receiveCapacity(int frameSize) {
            return Math.max(frameSize, Frame.HEADER_SIZE + maxPayload);
        }

        /** Removes the client's path too, whatever ended the run. */
        @Override
        public void close() throws IOException {
            release(socket, path);
        }
    }
}
