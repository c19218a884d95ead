package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Unix domain datagram socket ({@code AF_UNIX}, {@code SOCK_DGRAM}), which the JDK's
 * {@code DatagramChannel} does not offer: {@code socket}, {@code bind} (then {@code chmod}),
 * {@code connect}, {@code sendto}, {@code recvfrom} with {@code MSG_TRUNC} (so a datagram longer
 * than the buffer reports its real size instead of being cut silently), {@code SO_SNDBUF},
 * {@code SO_RCVBUF}, {@code SO_RCVTIMEO}, {@code shutdown}, {@code unlink}.
 *
 * <p>Buffers are caller-owned native segments; sending and receiving allocate nothing (a source
 * {@link UnixSocketAddress} is a reusable holder). Blocking calls are restarted after {@code EINTR}.
 */
public final class UnixDatagramSocket implements AutoCloseable {
    /**
     * About the largest datagram the kernel can allocate at all, whatever the send buffer
     * ({@code ENOBUFS} above it).
     */
    public static final int KERNEL_DATAGRAM_LIMIT = 4 * 1024 * 1024;
    /** A datagram may be at most the sending socket's {@code SO_SNDBUF} less this. */
    public static final int SEND_BUFFER_OVERHEAD = 32;

    private static final int SOCK_DGRAM = 2;
    private static final int SOCK_CLOEXEC = 02000000;
    private static final int SOL_SOCKET = 1;
    private static final int SO_SNDBUF = 7;
    private static final int SO_RCVBUF = 8;
    private static final int SO_RCVTIMEO = 20;
    private static final int MSG_TRUNC = 0x20;
    private static final int SHUT_RDWR = 2;

    private final int fd;
    private final AtomicBoolean closed = new AtomicBoolean();

    private UnixDatagramSocket(int fd) {
        this.fd = fd;
    }

    /**
     * Opens an unbound socket ({@code socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)}).
     *
     * @return the socket
     * @throws LinuxIpcException e.g. {@code EMFILE}
     */
    public static UnixDatagramSocket open() throws LinuxIpcException {
        try {
            int fd = (int) Libc.SOCKET.invokeExact(Libc.state(), UnixSocketAddress.AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
            return new UnixDatagramSocket((int) Libc.check(fd, "socket"));
        } catch (Throwable t) {
            throw Libc.failure(t);
        }
    }

    /**
     * The largest datagram a socket of this machine can send once its send buffer is raised as
     * far as the system allows: {@code min(SO_SNDBUF - 32, 4 MiB)}, measured on a probe socket.
     *
     * @return the largest datagram in bytes (header included)
     * @throws LinuxIpcException if the probe socket cannot be made
     */
    public static int largestDatagram() throws LinuxIpcException {
        try (UnixDatagramSocket probe = open()) {
            return probe.raiseBuffers();
        }
    }

    /**
     * Raises {@code SO_SNDBUF} and {@code SO_RCVBUF} as far as the system allows (asks for
     * {@code INT_MAX}; Linux caps it at {@code net.core.wmem_max} / {@code rmem_max} and doubles
     * it) and reads the send buffer back.
     *
     * @return the largest datagram this socket can now send: {@code min(SO_SNDBUF - 32, 4 MiB)}
     * @throws LinuxIpcException as setsockopt or getsockopt report
     */
    public int raiseBuffers() throws LinuxIpcException {
        setOption(SO_SNDBUF, Integer.MAX_VALUE);
        setOption(SO_RCVBUF, Integer.MAX_VALUE);
        return Math.min(sendBufferSize() - SEND_BUFFER_OVERHEAD, KERNEL_DATAGRAM_LIMIT);
    }

    /**
     * {@code getsockopt(SO_SNDBUF)}.
     *
     * @return the send buffer's size as the kernel keeps it (twice what was set)
     * @throws LinuxIpcException as getsockopt reports
     */
    public int sendBufferSize() throws LinuxIpcException {
        return option(SO_SNDBUF);
    }

    /**
     * {@code getsockopt(SO_RCVBUF)}.
     *
     * @return the receive buffer's size
     * @throws LinuxIpcException as getsockopt reports
     */
    public int receiveBufferSize() throws LinuxIpcException {
        return option(SO_RCVBUF);
    }

    /**
     * Bounds every later receive ({@code SO_RCVTIMEO}): a receive that waits longer returns -1.
     *
     * @param timeoutNanos the longest wait; 0 waits for ever
     * @throws LinuxIpcException as setsockopt reports
     */
    public void setReceiveTimeout(long timeoutNanos) throws LinuxIpcException {
        MemorySegment timeval = Libc.scratch().asSlice(16, 16);
        long micros = (timeoutNanos + 999) / 1000;
        timeval.set(JAVA_LONG, 0, micros / 1_000_000);
        timeval.set(JAVA_LONG, 8, micros % 1_000_000);
        setOption(SO_RCVTIMEO, timeval);
    }

    /**
     * Binds the socket to a path ({@code bind}), then gives the file this mode ({@code chmod});
     * the process umask applies in between, so a restrictive umask leaves no window.
     *
     * @param path where; must not exist
     * @param mode permission bits, e.g. {@code 0600}
     * @throws LinuxIpcException {@code EADDRINUSE} if the path exists, {@code ENAMETOOLONG}
     */
    public void bind(Path path, int mode) throws LinuxIpcException {
        UnixSocketAddress address = UnixSocketAddress.of(path);
        try {
            Libc.check((int) Libc.BIND.invokeExact(Libc.state(), fd, address.sockaddr(),
                    address.length()), "bind " + path);
        } catch (Throwable t) {
            throw Libc.failure(t);
        }
        chmod(path, mode);
    }

    /**
     * Connects to the socket at a path: sends without an address go there, and only its
     * datagrams are received.
     *
     * @param path the peer's path
     * @throws LinuxIpcException {@code ENOENT}, {@code ECONNREFUSED}
     */
    public void connect(Path path) throws LinuxIpcException {
        UnixSocketAddress address = UnixSocketAddress.of(path);
        try {
            Libc.check((int) Libc.CONNECT.invokeExact(Libc.state(), fd, address.sockaddr(),
                    address.length()), "connect " + path);
        } catch (Throwable t) {
            throw Libc.failure(t);
        }
    }

    /**
     * Sends {@code buffer[0, length)} as one datagram to the connected peer.
     *
     * @param buffer a native segment
     * @param length the datagram's size
     * @throws LinuxIpcException {@code EMSGSIZE} above the send buffer, {@code ENOBUFS} above
     *     what the kernel can allocate, {@code ECONNREFUSED} when the peer is gone
     */
    public void send(MemorySegment buffer, long length) throws LinuxIpcException {
        send(buffer, length, MemorySegment.NULL, 0);
    }

    /**
     * Sends {@code buffer[0, length)} as one datagram to an address.
     *
     * @param buffer a native segment
     * @param length the datagram's size
     * @param to where, e.g. the source {@link #receiveFrom} filled in
     * @throws LinuxIpcException as {@link #send(MemorySegment, long)}
     */
    public void sendTo(MemorySegment buffer, long length, UnixSocketAddress to) throws LinuxIpcException {
        send(buffer, length, to.sockaddr(), to.length());
    }

    private void send(MemorySegment buffer, long length, MemorySegment to, int toLength)
            throws LinuxIpcException {
        Bounds.check(0, length, buffer.byteSize());
        try {
            long n;
            do {
                n = (long) Libc.SENDTO.invokeExact(Libc.state(), fd, buffer, length, 0, to, toLength);
            } while (Libc.again(n, "sendto"));
        } catch (Throwable t) {
            throw Libc.failure(t);
        }
    }

    /**
     * Receives one datagram from the connected peer into {@code buffer} (blocking).
     *
     * @param buffer a native segment; a longer datagram is cut to its size
     * @return the datagram's real size (larger than the buffer if it was cut), or -1 when the
     *     receive timeout ({@link #setReceiveTimeout}) expired
     * @throws LinuxIpcException e.g. {@code EBADF} after close
     */
    public long receive(MemorySegment buffer) throws LinuxIpcException {
        return receive(buffer, MemorySegment.NULL, MemorySegment.NULL);
    }

    /**
     * Receives one datagram and the address it came from.
     *
     * @param buffer a native segment; a longer datagram is cut to its size
     * @param from filled with the sender's address
     * @return the datagram's real size, or -1 on a receive timeout
     * @throws LinuxIpcException as {@link #receive(MemorySegment)}
     */
    public long receiveFrom(MemorySegment buffer, UnixSocketAddress from) throws LinuxIpcException {
        from.length(UnixSocketAddress.SOCKADDR_UN_SIZE);
        return receive(buffer, from.sockaddr(), from.lengthCell());
    }

    private long receive(MemorySegment buffer, MemorySegment from, MemorySegment fromLength)
            throws LinuxIpcException {
        try {
            long n;
            do {
                n = (long) Libc.RECVFROM.invokeExact(Libc.state(), fd, buffer, buffer.byteSize(),
                        MSG_TRUNC, from, fromLength);
            } while (Libc.again(n, "recvfrom", Libc.EAGAIN));
            return n < 0 ? -1 : n;
        } catch (Throwable t) {
            throw Libc.failure(t);
        }
    }

    /**
     * Ends both directions ({@code shutdown(SHUT_RDWR)}): a thread blocked in a receive returns
     * 0 at once, which closing the descriptor would not do.
     *
     * @throws LinuxIpcException as shutdown reports
     */
    public void shutdown() throws LinuxIpcException {
        try {
            Libc.check((int) Libc.SHUTDOWN.invokeExact(Libc.state(), fd, SHUT_RDWR), "shutdown");
        } catch (Throwable t) {
            throw Libc.failure(t);
        }
    }

    /**
     * Closes the descriptor. Idempotent; does not remove a bound path ({@link #unlink}).
     *
     * @throws LinuxIpcException as close reports
     */
    @Override
    public void close() throws LinuxIpcException {
        if (closed.compareAndSet(false, true)) {
            try {
                Libc.check((int) Libc.CLOSE.invokeExact(Libc.state(), fd), "close");
            } catch (Throwable t) {
                throw Libc.failure(t);
            }
        }
    }

    /**
     * Sets a file's permission bits ({@code chmod}).
     *
     * @param path the file
     * @param mode e.g. {@code 0600}
     * @throws LinuxIpcException {@code ENOENT}, {@code EPERM}
     */
    public static void chmod(Path path, int mode) throws LinuxIpcException {
        try (Arena arena = Arena.ofConfined()) {
            Libc.check((int) Libc.CHMOD.invokeExact(Libc.state(), arena.allocateFrom(path.toString()),
                    mode & 07777), "chmod " + path);
        } catch (Throwable t) {
            throw Libc.failure(t);
        }
    }

    /**
     * Removes a path ({@code unlink}), e.g. a socket's file, which closing does not remove.
     *
     * @param path the file
     * @throws LinuxIpcException {@code ENOENT} if there is none
     */
    public static void unlink(Path path) throws LinuxIpcException {
        try (Arena arena = Arena.ofConfined()) {
            Libc.check((int) Libc.UNLINK.invokeExact(Libc.state(), arena.allocateFrom(path.toString())),
                    "unlink " + path);
        } catch (Throwable t) {
            throw Libc.failure(t);
        }
    }

    private void setOption(int name, int value) throws LinuxIpcException {
        MemorySegment cell = Libc.scratch().asSlice(32, 4);
        cell.set(JAVA_INT, 0, value);
        setOption(name, cell);
    }

    private void setOption(int name, MemorySegment value) throws LinuxIpcException {
        try {
            Libc.check((int) Libc.SETSOCKOPT.invokeExact(Libc.state(), fd, SOL_SOCKET, name, value,
                    (int) value.byteSize()), "setsockopt");
        } catch (Throwable t) {
            throw Libc.failure(t);
        }
    }

    private int option(int name) throws LinuxIpcException {
        MemorySegment cells = Libc.scratch().asSlice(32, 8);
        cells.set(JAVA_INT, 4, 4);
        try {
            Libc.check((int) Libc.GETSOCKOPT.invokeExact(Libc.state(), fd, SOL_SOCKET, name,
                    cells.asSlice(0, 4), cells.asSlice(4, 4)), "getsockopt");
        } catch (Throwable t) {
            throw Libc.failure(t);
        }
        return cells.get(JAVA_INT, 0);
    }

    @Override
    public String toString() {
        return "UnixDatagramSocket[fd=" + fd + "]";
    }
}
