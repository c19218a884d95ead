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
 * the library only the ZeroMQ rows are unavailable ({@link #problem()}). Here: the library, its
 * constants, its context and its failure; the socket, message and poll are {@link ZmqNative}'s.
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

    /** ZMQ_HAUSNUMERO + 53: the context was shut down ({@link Context#shutdown}). */
    static final int ETERM = 156_384_712 + 53;

    private Zmq() {}

    /** The downcall handles, made at the first ZeroMQ call; null handles if libzmq is missing. */
    static final class Lib {
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
        final MemorySegment handle;
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
}
