package dev.ipclab.peer.transport;

import static dev.ipclab.peer.transport.Downcalls.unexpected;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * libzmq's C API through the FFM API (java.lang.foreign): the system's libzmq.so.5, the library
 * the C++ peer links, so the Java peer has real {@code ipc://} (Unix domain sockets) and the same
 * ZMTP wire as the other peers (PROTOCOL.md 4.8). A context and sockets that close themselves,
 * the options the contract states, and libzmq's errors as IOExceptions (EAGAIN, a send or receive
 * past its timeout: {@link ReceiveTimeoutException}). Loaded at the first ZeroMQ call: without
 * the library only the ZeroMQ rows are unavailable ({@link #problem()}).
 */
public final class Zmq {
    static final int REQ = 3;
    static final int REP = 4;
    static final int PULL = 7;
    static final int PUSH = 8;

    static final int LINGER = 17;
    static final int MAXMSGSIZE = 22;
    static final int SNDHWM = 23;
    static final int RCVHWM = 24;
    static final int RCVTIMEO = 27;
    static final int SNDTIMEO = 28;
    static final int LAST_ENDPOINT = 32;

    private static final short POLLIN = 1;
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;
    /** ZMQ_HAUSNUMERO + 53: the context was shut down ({@link Context#shutdown}). */
    static final int ETERM = 156_384_712 + 53;

    private Zmq() {}

    /** The downcall handles, made at the first ZeroMQ call; null handles if libzmq is missing. */
    private static final class Lib {
        static final SharedLibrary ZMQ = SharedLibrary.load("libzmq", "libzmq.so.5",
                "install the Debian package libzmq5: make setup");
        static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
        static final VarHandle ERRNO =
                CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        /** zmq_pollitem_t: socket, fd, events, revents (16 bytes on x86-64). */
        static final StructLayout POLL_ITEM = MemoryLayout.structLayout(ADDRESS.withName("socket"),
                JAVA_INT.withName("fd"), JAVA_SHORT.withName("events"),
                JAVA_SHORT.withName("revents"));
        static final long REVENTS = POLL_ITEM.byteOffset(
                MemoryLayout.PathElement.groupElement("revents"));
        static final long EVENTS = POLL_ITEM.byteOffset(
                MemoryLayout.PathElement.groupElement("events"));
        /** zmq_msg_t: 64 opaque bytes, pointer-aligned. */
        static final MemoryLayout MSG = MemoryLayout.sequenceLayout(8, JAVA_LONG);

        static final MethodHandle CTX_NEW = ZMQ.function("zmq_ctx_new",
                FunctionDescriptor.of(ADDRESS));
        static final MethodHandle CTX_SHUTDOWN = ZMQ.function("zmq_ctx_shutdown",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle CTX_TERM = ZMQ.function("zmq_ctx_term",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle SOCKET = ZMQ.functionWithErrno("zmq_socket",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        static final MethodHandle CLOSE = ZMQ.function("zmq_close",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle SETSOCKOPT = ZMQ.functionWithErrno("zmq_setsockopt",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));
        static final MethodHandle GETSOCKOPT = ZMQ.functionWithErrno("zmq_getsockopt",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
        static final MethodHandle BIND = ZMQ.functionWithErrno("zmq_bind",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        static final MethodHandle CONNECT = ZMQ.functionWithErrno("zmq_connect",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        static final MethodHandle SEND = ZMQ.functionWithErrno("zmq_send",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        static final MethodHandle RECV = ZMQ.functionWithErrno("zmq_recv",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        static final MethodHandle POLL = ZMQ.functionWithErrno("zmq_poll",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
        static final MethodHandle MSG_INIT = ZMQ.function("zmq_msg_init",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle MSG_RECV = ZMQ.functionWithErrno("zmq_msg_recv",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        static final MethodHandle MSG_DATA = ZMQ.function("zmq_msg_data",
                FunctionDescriptor.of(ADDRESS, ADDRESS));
        static final MethodHandle MSG_SIZE = ZMQ.function("zmq_msg_size",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        static final MethodHandle MSG_CLOSE = ZMQ.function("zmq_msg_close",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        static final MethodHandle STRERROR = ZMQ.function("zmq_strerror",
                FunctionDescriptor.of(ADDRESS, JAVA_INT));
        static final String VERSION = version(ZMQ.function("zmq_version",
                FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS)));

        /** {@code "libzmq 4.3.4"} from zmq_version's three ints; null without the library. */
        private static String version(MethodHandle zmqVersion) {
            if (zmqVersion == null) {
                return null;
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment v = arena.allocate(JAVA_INT, 3);
                zmqVersion.invokeExact(v, v.asSlice(4), v.asSlice(8));
                return "libzmq " + v.getAtIndex(JAVA_INT, 0) + "." + v.getAtIndex(JAVA_INT, 1)
                        + "." + v.getAtIndex(JAVA_INT, 2);
            } catch (Throwable e) {
                throw unexpected(e);
            }
        }
    }

    /** Why ZeroMQ cannot run in this process, or null when libzmq is loaded. */
    public static String problem() {
        return Lib.ZMQ.problem();
    }

    /** {@code "libzmq 4.3.4"}: the library this process runs (capabilities' {@code library}). */
    public static String version() {
        return Lib.VERSION;
    }

    private static void loaded() throws IOException {
        if (problem() != null) {
            throw new IOException(problem());
        }
    }

    /** A failure of what with libzmq's errno: EAGAIN is a timeout, anything else io. */
    private static IOException failure(String what, int errno) {
        if (errno == EAGAIN) {
            return new ReceiveTimeoutException(what + ": nothing within --io-timeout");
        }
        return new ZmqException(what + ": " + strerror(errno), errno);
    }

    private static String strerror(int errno) {
        try {
            // A static string of the library's: read up to its NUL, never written.
            return SharedLibrary.string((MemorySegment) Lib.STRERROR.invokeExact(errno));
        } catch (Throwable e) {
            return "errno " + errno;
        }
    }

    /** A downcall that returns an int (its result, or negative with errno set). */
    @FunctionalInterface
    private interface IntCall {
        int invoke() throws Throwable;
    }

    /**
     * What a socket, a message and a poll share: the memory they hold for the library, freed on
     * {@link #close}, and the errno their calls capture into it.
     */
    private abstract static class Native implements AutoCloseable {
        final Arena arena = Arena.ofShared();
        final MemorySegment state = arena.allocate(Lib.CALL_STATE);
        private boolean closed;

        final int errno() {
            return (int) Lib.ERRNO.get(state, 0L);
        }

        /** One call that returns 0, or not with errno set: then what's failure. */
        final void call(String what, IntCall call) throws IOException {
            int rc;
            try {
                rc = call.invoke();
            } catch (Throwable e) {
                throw unexpected(e);
            }
            if (rc != 0) {
                throw failure(what, errno());
            }
        }

        /** A call retried while it fails with EINTR; its result, or what's failure. */
        final int retried(String what, IntCall call) throws IOException {
            try {
                int rc;
                while ((rc = call.invoke()) < 0) {
                    int errno = errno();
                    if (errno != EINTR) {
                        throw failure(what, errno);
                    }
                }
                return rc;
            } catch (IOException e) {
                throw e;
            } catch (Throwable e) {
                throw unexpected(e);
            }
        }

        /** The library's release of what this holds, before its memory is freed. */
        abstract void release() throws Throwable;

        /** Once: {@link #release} then the memory. */
        @Override
        public final void close() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                release();
            } catch (Throwable e) {
                throw unexpected(e);
            } finally {
                arena.close();
            }
        }
    }

    /** A libzmq failure that is not a timeout; {@link #terminated()} once the context is shut down. */
    public static final class ZmqException extends IOException {
        private static final long serialVersionUID = 1L;
        private final int errno;

        ZmqException(String message, int errno) {
            super(message);
            this.errno = errno;
        }

        /** ETERM: the context was shut down (the server is stopping). */
        public boolean terminated() {
            return errno == ETERM;
        }
    }

    /** A context (zmq_ctx_new): its sockets must be closed before {@link #close}. */
    static final class Context implements AutoCloseable {
        private final MemorySegment handle;
        private boolean closed;

        Context() throws IOException {
            loaded();
            try {
                handle = (MemorySegment) Lib.CTX_NEW.invokeExact();
            } catch (Throwable e) {
                throw unexpected(e);
            }
            if (handle.equals(MemorySegment.NULL)) {
                throw new IOException("zmq_ctx_new failed");
            }
        }

        /**
         * zmq_ctx_shutdown: every blocking call on its sockets, in any thread, returns ETERM now
         * and every later one at once. Safe from any thread; idempotent.
         */
        void shutdown() {
            try {
                int ignored = (int) Lib.CTX_SHUTDOWN.invokeExact(handle);
            } catch (Throwable e) {
                throw unexpected(e);
            }
        }

        /** zmq_ctx_term, once: returns at once when every socket has closed with linger 0. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                while ((int) Lib.CTX_TERM.invokeExact(handle) != 0) {
                    // EINTR only: retried, as libzmq asks.
                }
            } catch (Throwable e) {
                throw unexpected(e);
            }
        }
    }

    /** A socket of one type with ZMQ_LINGER 0, used by one thread at a time. */
    static final class Socket extends Native {
        private final MemorySegment scratch = arena.allocate(JAVA_LONG, 2);
        private final MemorySegment handle;

        Socket(Context context, int type) throws IOException {
            MemorySegment socket;
            try {
                socket = (MemorySegment) Lib.SOCKET.invokeExact(state, context.handle, type);
            } catch (Throwable e) {
                arena.close();
                throw unexpected(e);
            }
            if (socket.equals(MemorySegment.NULL)) {
                IOException failure = failure("zmq_socket", errno());
                arena.close();
                throw failure;
            }
            handle = socket;
            set(LINGER, 0);
        }

        MemorySegment handle() {
            return handle;
        }

        void set(int option, int value) throws IOException {
            scratch.set(JAVA_INT, 0, value);
            setOption(option, 4, "zmq_setsockopt " + option);
        }

        /** ZMQ_MAXMSGSIZE: a longer message makes libzmq drop the connection before allocating. */
        void setMaxMessage(long bytes) throws IOException {
            scratch.set(JAVA_LONG, 0, bytes);
            setOption(MAXMSGSIZE, 8, "zmq_setsockopt ZMQ_MAXMSGSIZE");
        }

        private void setOption(int option, long size, String what) throws IOException {
            call(what, () -> (int) Lib.SETSOCKOPT.invokeExact(state, handle, option, scratch, size));
        }

        void bind(String address) throws IOException {
            addressCall(Lib.BIND, address, "bind " + address);
        }

        void connect(String address) throws IOException {
            addressCall(Lib.CONNECT, address, "connect " + address);
        }

        private void addressCall(MethodHandle function, String address, String what)
                throws IOException {
            try (Arena local = Arena.ofConfined()) {
                MemorySegment c = local.allocateFrom(address);
                call(what, () -> (int) function.invokeExact(state, handle, c));
            }
        }

        /** ZMQ_LAST_ENDPOINT: the address the last bind got ({@code tcp://127.0.0.1:40123}). */
        String lastEndpoint() throws IOException {
            try (Arena local = Arena.ofConfined()) {
                MemorySegment buf = local.allocate(256);
                MemorySegment len = local.allocate(JAVA_LONG);
                len.set(JAVA_LONG, 0, buf.byteSize());
                call("zmq_getsockopt ZMQ_LAST_ENDPOINT",
                        () -> (int) Lib.GETSOCKOPT.invokeExact(state, handle, LAST_ENDPOINT, buf, len));
                return buf.getString(0);
            }
        }

        /** One whole message of the n bytes at data (EINTR retried). */
        void send(MemorySegment data, long n, String what) throws IOException {
            retried(what, () -> (int) Lib.SEND.invokeExact(state, handle, data, n, 0));
        }

        /**
         * The next message, copied into buf as far as it fits (EINTR retried).
         *
         * @return the message's real size, which may exceed capacity
         */
        int receive(MemorySegment buf, long capacity, String what) throws IOException {
            return retried(what, () -> (int) Lib.RECV.invokeExact(state, handle, buf, capacity, 0));
        }

        /** zmq_close, once; linger 0 drops whatever is unsent. */
        @Override
        void release() throws Throwable {
            int ignored = (int) Lib.CLOSE.invokeExact(handle);
        }
    }

    /** A received message, kept by libzmq until the next receive into it or {@link #close}. */
    static final class Message extends Native {
        private final MemorySegment msg = arena.allocate(Lib.MSG);

        Message() {
            try {
                int ignored = (int) Lib.MSG_INIT.invokeExact(msg);
            } catch (Throwable e) {
                throw unexpected(e);
            }
        }

        /** Receives the next message of socket in place of this one (EINTR retried). */
        void receive(Socket socket, String what) throws IOException {
            retried(what, () -> (int) Lib.MSG_RECV.invokeExact(state, msg, socket.handle, 0));
        }

        long size() {
            try {
                return (long) Lib.MSG_SIZE.invokeExact(msg);
            } catch (Throwable e) {
                throw unexpected(e);
            }
        }

        /** The message's bytes, valid until the next receive into it. */
        MemorySegment data() {
            try {
                MemorySegment data = (MemorySegment) Lib.MSG_DATA.invokeExact(msg);
                return data.reinterpret(size());
            } catch (Throwable e) {
                throw unexpected(e);
            }
        }

        @Override
        void release() throws Throwable {
            int ignored = (int) Lib.MSG_CLOSE.invokeExact(msg);
        }
    }

    /** zmq_poll over two sockets for input, without a timeout. */
    static final class Poll extends Native {
        private final MemorySegment items = arena.allocate(Lib.POLL_ITEM, 2);

        Poll(Socket first, Socket second) {
            Socket[] sockets = {first, second};
            for (int i = 0; i < 2; i++) {
                MemorySegment item = items.asSlice(i * Lib.POLL_ITEM.byteSize(), Lib.POLL_ITEM);
                item.set(ADDRESS, 0, sockets[i].handle);
                item.set(JAVA_SHORT, Lib.EVENTS, POLLIN);
            }
        }

        /**
         * Waits until either socket has a message (EINTR retried).
         *
         * @return which have one: bit 0 the first socket, bit 1 the second
         */
        int waitReadable(String what) throws IOException {
            while (true) {
                retried(what, () -> (int) Lib.POLL.invokeExact(state, items, 2, -1L));
                int readable = 0;
                for (int i = 0; i < 2; i++) {
                    if ((items.get(JAVA_SHORT, i * Lib.POLL_ITEM.byteSize() + Lib.REVENTS)
                            & POLLIN) != 0) {
                        readable |= 1 << i;
                    }
                }
                if (readable != 0) {
                    return readable;
                }
            }
        }

        /** Nothing of the library's: only the memory. */
        @Override
        void release() {}
    }
}
