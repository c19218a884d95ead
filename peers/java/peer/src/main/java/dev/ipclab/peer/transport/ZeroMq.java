package dev.ipclab.peer.transport;

import dev.ipclab.peer.frame.Frame;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * zmq-tcp and zmq-ipc (PROTOCOL.md 4.8) over libzmq ({@link Zmq}). The server binds a REP request
 * socket (rr's frames, a stream's MARK and END) and a PULL stream socket (a stream's messages) as
 * one {@link DatagramPort}, so the {@code DatagramServer} checks and answers every frame as it
 * does a datagram's. The client connects a REQ and, for a stream, a PUSH once the first MARK_ACK
 * is in (the server has set its stream socket's high-water mark by then). Each frame or stream
 * message is one ZeroMQ message; every socket has ZMQ_LINGER 0 and a ZMQ_MAXMSGSIZE, so the
 * library never allocates for a message larger than this side takes.
 */
public final class ZeroMq {
    /** A native byte of which a send takes none: the empty answer. */
    private static final MemorySegment EMPTY = java.lang.foreign.Arena.global().allocate(1);

    private ZeroMq() {}

    /** zmq-tcp's server: binds HOST:PORT (port 0: the library's choice) and a second port. */
    public static DatagramPort bindTcp(String endpoint) throws IOException {
        Endpoints.HostPort at = Endpoints.hostPort(endpoint);
        String prefix = SocketPair.tcpPrefix(at);
        return Port.open(List.of(), (requests, stream) -> {
            requests.bind(prefix + (at.port() == 0 ? "*" : Integer.toString(at.port())));
            stream.bind(prefix + "*");
            return requests.lastEndpoint() + "," + stream.lastEndpoint();
        });
    }

    /**
     * zmq-ipc's server: binds PATH and PATH.stream, refusing either if it exists (libzmq would
     * replace it), each mode 0600 once bound; both are removed on close.
     */
    public static DatagramPort bindIpc(String endpoint) throws IOException {
        String path = Endpoints.path(endpoint);
        List<Path> files = SocketPair.ipcFiles(path);
        SocketPair sockets = SocketPair.ipc(path);
        return Port.open(files, (requests, stream) -> {
            requests.bind(sockets.requests());
            ownerOnly(files.get(0));
            stream.bind(sockets.stream());
            ownerOnly(files.get(1));
            return path;
        });
    }

    private static void ownerOnly(Path file) throws IOException {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    /**
     * A client of either mechanism.
     *
     * @param endpoint zmq-tcp: READY's two addresses; zmq-ipc: the server's PATH
     * @param largestAnswer the largest answer it waits for (its REQ's ZMQ_MAXMSGSIZE)
     * @param messageSize a stream's message size (its PUSH's high-water mark); 0 for rr
     */
    public static ClientLink connect(String endpoint, boolean ipc, long ioTimeoutNanos,
            long largestAnswer, int messageSize) throws IOException {
        SocketPair sockets = ipc ? SocketPair.ipc(Endpoints.path(endpoint))
                : SocketPair.tcp(endpoint);
        return new Link(sockets, ioTimeoutNanos, largestAnswer, messageSize);
    }

    private interface Binding {
        /** Binds both sockets; returns READY's endpoint. */
        String bind(ZmqNative.Socket requests, ZmqNative.Socket stream) throws IOException;
    }

    /**
     * The server's two sockets as one port. While a MARK's messages are due it reads only the
     * stream socket ({@link #receive(ByteBuffer, boolean)}), so that a control frame is taken only
     * once every message announced before it has come; otherwise it polls both, and a stream
     * message then is {@code unexpected message}. REP must answer every request before it takes
     * the next: a request left unanswered (rejected, or one that wants no answer) is answered with
     * an empty message before the next receive. Only the serving thread uses the sockets; another
     * thread stops it by shutting the context down ({@link #wake}), and {@link #close} closes the
     * sockets once no call of that thread is running.
     */
    private static final class Port extends WholeMessagePort {
        private final Zmq.Context context;
        private final ZmqNative.Socket requests;
        private final ZmqNative.Socket stream;
        private final ZmqNative.Message message;
        private final ZmqNative.Poll poll;
        private final List<Path> files;
        private final Segments segments = new Segments();
        /** Held around every call on the sockets; close() takes it to release them. */
        private final ReentrantLock using = new ReentrantLock();
        /** A request was received on REP and not yet answered. */
        private boolean owed;
        private volatile boolean open = true;
        private boolean released;

        private Port(Zmq.Context context, ZmqNative.Socket requests, ZmqNative.Socket stream,
                List<Path> files, String endpoint) {
            super(endpoint);
            this.context = context;
            this.requests = requests;
            this.stream = stream;
            this.files = files;
            this.message = new ZmqNative.Message();
            this.poll = new ZmqNative.Poll(requests, stream);
        }

        static Port open(List<Path> files, Binding binding) throws IOException {
            Zmq.Context context = new Zmq.Context();
            List<ZmqNative.Socket> made = new ArrayList<>();
            try {
                ZmqNative.Socket requests = new ZmqNative.Socket(context, Zmq.REP);
                made.add(requests);
                ZmqNative.Socket stream = new ZmqNative.Socket(context, Zmq.PULL);
                made.add(stream);
                requests.setMaxMessage(Frame.HEADER_SIZE + (long) Frame.MAX_PAYLOAD);
                stream.setMaxMessage(Frame.MAX_PAYLOAD);
                String endpoint = binding.bind(requests, stream);
                return new Port(context, requests, stream, files, endpoint);
            } catch (IOException | RuntimeException e) {
                made.forEach(ZmqNative.Socket::close);
                context.close();
                SocketPair.remove(files, e);
                throw e;
            }
        }

        @Override
        public int receive(ByteBuffer dst, boolean messageDue) throws IOException {
            using.lock();
            try {
                checkOpen();
                if (owed) {
                    owed = false;
                    requests.send(EMPTY, 0, "the empty answer to a rejected request");
                }
                if (messageDue) {
                    message.receive(stream, "receive on the stream socket");
                    return copy(dst);
                }
                int readable = poll.waitReadable("zmq_poll");
                if ((readable & 2) != 0) { // nothing was announced
                    message.receive(stream, "receive on the stream socket");
                    throw new FrameRejectedException("unexpected message");
                }
                message.receive(requests, "receive on the request socket");
                owed = true;
                return copy(dst);
            } catch (Zmq.ZmqException e) {
                throw stopped(e);
            } finally {
                using.unlock();
            }
        }

        /** A call that failed because the context was shut down: the port is closed. */
        private IOException stopped(Zmq.ZmqException e) {
            if (e.terminated()) {
                open = false;
            }
            return e;
        }

        private void checkOpen() throws IOException {
            if (!open) {
                throw new IOException("the ZeroMQ sockets are closed");
            }
        }

        private int copy(ByteBuffer dst) {
            return copy(message.data(), dst, segments);
        }

        @Override
        public int receiveAgain(ByteBuffer dst) throws IOException {
            using.lock();
            try {
                checkOpen();
                return copy(dst);
            } finally {
                using.unlock();
            }
        }

        /** The answer to the request just received, on REP. */
        @Override
        public void reply(ByteBuffer frame) throws IOException {
            using.lock();
            try {
                checkOpen();
                requests.send(segments.of(frame), frame.limit(), "send of a "
                        + frame.limit() + "-byte answer");
                owed = false;
            } catch (Zmq.ZmqException e) {
                throw stopped(e);
            } finally {
                using.unlock();
            }
        }

        /** The stream socket's high-water mark for this stream, set before its MARK_ACK goes. */
        @Override
        public void streamStarts(int messageSize, long count) throws IOException {
            using.lock();
            try {
                checkOpen();
                stream.set(Zmq.RCVHWM, LibraryLimits.streamWindow(messageSize));
            } finally {
                using.unlock();
            }
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        /** Shutting the context down makes the serving thread's blocked call return (ETERM). */
        @Override
        public void wake() {
            context.shutdown();
        }

        /**
         * Removes the ipc files, stops the serving thread's calls and then, once none is running
         * (the serving thread sees the context shut down at once), closes the sockets and the
         * context. A process that ends while its serving thread never lets go halts anyway.
         */
        @Override
        public void close() throws IOException {
            open = false;
            context.shutdown();
            IOException failure = new IOException("cannot remove the ipc socket files");
            SocketPair.remove(files, failure);
            try {
                if (using.tryLock(2, TimeUnit.SECONDS)) {
                    try {
                        release();
                    } finally {
                        using.unlock();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (failure.getSuppressed().length != 0) {
                throw failure;
            }
        }

        private void release() {
            if (!released) {
                released = true;
                message.close();
                poll.close();
                requests.close();
                stream.close();
                context.close();
            }
        }
    }

    /**
     * The client: a REQ for the frames and, for a stream, a PUSH for its messages, connected once
     * the first MARK_ACK is in. A receive or send blocked longer than --io-timeout is a timeout.
     */
    private static final class Link implements ClientLink {
        private final Zmq.Context context;
        private final ZmqNative.Socket req;
        private final SocketPair sockets;
        private final int timeoutMillis;
        private final int messageSize;
        private final Segments segments = new Segments();
        private ZmqNative.Socket push;

        Link(SocketPair sockets, long ioTimeoutNanos, long largestAnswer, int messageSize)
                throws IOException {
            this.sockets = sockets;
            this.timeoutMillis = Math.max(1, LibraryLimits.millis(ioTimeoutNanos));
            this.messageSize = messageSize;
            this.context = new Zmq.Context();
            ZmqNative.Socket socket = null;
            try {
                socket = new ZmqNative.Socket(context, Zmq.REQ);
                socket.setMaxMessage(largestAnswer);
                socket.set(Zmq.RCVTIMEO, timeoutMillis);
                socket.set(Zmq.SNDTIMEO, timeoutMillis);
                socket.connect(sockets.requests());
            } catch (IOException | RuntimeException e) {
                if (socket != null) {
                    socket.close();
                }
                context.close();
                throw e;
            }
            this.req = socket;
        }

        @Override
        public void send(ByteBuffer frame) throws IOException {
            req.send(segments.of(frame), frame.limit(), "send of a " + frame.limit()
                    + "-byte frame");
        }

        /** The answer copied into dst as far as it fits; its real size, so a wrong one shows. */
        @Override
        public int receive(ByteBuffer dst, int frameSize) throws IOException {
            int size = req.receive(segments.of(dst.clear()), dst.capacity(), "receive of an answer");
            if (push == null && size == Frame.HEADER_SIZE && Frame.kind(dst) == Frame.MARK_ACK) {
                connectPush();
            }
            return size;
        }

        private void connectPush() throws IOException {
            ZmqNative.Socket socket = new ZmqNative.Socket(context, Zmq.PUSH);
            try {
                socket.setMaxMessage(Frame.MAX_PAYLOAD);
                socket.set(Zmq.SNDHWM, LibraryLimits.streamWindow(messageSize));
                socket.set(Zmq.SNDTIMEO, timeoutMillis);
                socket.connect(sockets.stream());
            } catch (IOException | RuntimeException e) {
                socket.close();
                throw e;
            }
            push = socket;
        }

        /** A stream message (11.1): one message on the PUSH socket. */
        @Override
        public void sendMessage(ByteBuffer message) throws IOException {
            if (push == null) {
                throw new IOException("a stream message before any MARK_ACK");
            }
            push.send(segments.of(message), message.limit(), "send of a stream message");
        }

        @Override
        public void close() {
            if (push != null) {
                push.close();
            }
            req.close();
            context.close();
        }
    }
}
