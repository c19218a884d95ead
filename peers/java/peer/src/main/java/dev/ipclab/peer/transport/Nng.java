package dev.ipclab.peer.transport;

import static dev.ipclab.peer.transport.Downcalls.unexpected;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * libnng's C API through the FFM API: the system's libnng.so.1 (Debian libnng1, 1.5.2), the
 * library the C++ peer links, so the Java peer speaks the same SP protocols over the same
 * {@code tcp://} and {@code ipc://} transports (PROTOCOL.md 4.9). Sockets and messages that close
 * themselves, the options the contract states, and libnng's errors as IOExceptions
 * (NNG_ETIMEDOUT: {@link ReceiveTimeoutException}). Loaded at the first NNG call: without the
 * library only the NNG rows are unavailable ({@link #problem()}).
 *
 * <p>libnng reports errors as return values, not errno, so nothing is captured after a call; its
 * sockets are thread-safe, so another thread may close one under a blocked receive, which then
 * fails with NNG_ECLOSED ({@link NngException#closed()}).
 */
public final class Nng {
    static final String RECVMAXSZ = "recv-size-max";
    static final String RECVTIMEO = "recv-timeout";
    static final String SENDTIMEO = "send-timeout";
    static final String SENDBUF = "send-buffer";
    static final String REQ_RESENDTIME = "req:resend-time";
    private static final String TCP_NODELAY = "tcp-nodelay";
    private static final String TCP_BOUND_PORT = "tcp-bound-port";
    private static final String IPC_PERMISSIONS = "ipc:permissions";
    /** NNG_DURATION_INFINITE. */
    static final int INFINITE = -1;
    /**
     * NNG_OPT_RECVMAXSZ counts the whole message on the wire, and req0/rep0 put a 4-byte request
     * ID before the body (one hop, no device between): a REQ's or REP's limit is the body's plus
     * this.
     */
    static final int REQUEST_ID = 4;

    private static final int NONBLOCK = 2;
    private static final int ETIMEDOUT = 5;
    private static final int ECLOSED = 7;
    private static final int EAGAIN = 8;

    private Nng() {}

    /** The downcall handles, made at the first NNG call; null handles if libnng is missing. */
    private static final class Lib {
        static final SharedLibrary NNG = SharedLibrary.load("libnng", "libnng.so.1",
                "install the Debian package libnng1: make setup");
        /** nng_socket, nng_dialer, nng_listener: a struct of one uint32_t, passed by value. */
        static final StructLayout ID = MemoryLayout.structLayout(JAVA_INT.withName("id"));

        static final MethodHandle REQ0_OPEN = open("nng_req0_open");
        static final MethodHandle REP0_OPEN = open("nng_rep0_open");
        static final MethodHandle PUSH0_OPEN = open("nng_push0_open");
        static final MethodHandle PULL0_OPEN = open("nng_pull0_open");
        static final MethodHandle CLOSE = NNG.function("nng_close", FunctionDescriptor.of(JAVA_INT, ID));
        static final MethodHandle SET_MS = NNG.function("nng_socket_set_ms",
                FunctionDescriptor.of(JAVA_INT, ID, ADDRESS, JAVA_INT));
        static final MethodHandle SET_INT = NNG.function("nng_socket_set_int",
                FunctionDescriptor.of(JAVA_INT, ID, ADDRESS, JAVA_INT));
        static final MethodHandle SET_SIZE = NNG.function("nng_socket_set_size",
                FunctionDescriptor.of(JAVA_INT, ID, ADDRESS, JAVA_LONG));
        static final Endpoint LISTENER = new Endpoint("nng_listener_");
        static final Endpoint DIALER = new Endpoint("nng_dialer_");
        static final MethodHandle SEND = NNG.function("nng_send",
                FunctionDescriptor.of(JAVA_INT, ID, ADDRESS, JAVA_LONG, JAVA_INT));
        static final MethodHandle RECVMSG = NNG.function("nng_recvmsg",
                FunctionDescriptor.of(JAVA_INT, ID, ADDRESS, JAVA_INT));
        static final MethodHandle MSG_BODY = NNG.function("nng_msg_body",
                FunctionDescriptor.of(ADDRESS, ADDRESS));
        static final MethodHandle MSG_LEN = NNG.function("nng_msg_len",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        static final MethodHandle MSG_FREE = NNG.function("nng_msg_free",
                FunctionDescriptor.ofVoid(ADDRESS));
        static final MethodHandle STRERROR = NNG.function("nng_strerror",
                FunctionDescriptor.of(ADDRESS, JAVA_INT));
        static final String VERSION = version(NNG.function("nng_version",
                FunctionDescriptor.of(ADDRESS)));

        /**
         * A listener's or a dialer's calls ({@code nng_listener_create}, ...; the same
         * signatures for both): made on a socket for a URL, given options, started.
         */
        record Endpoint(MethodHandle create, MethodHandle setBool, MethodHandle setInt,
                MethodHandle getInt, MethodHandle start) {
            Endpoint(String prefix) {
                this(NNG.function(prefix + "create", FunctionDescriptor.of(JAVA_INT, ADDRESS, ID,
                        ADDRESS)), NNG.function(prefix + "set_bool", FunctionDescriptor.of(JAVA_INT,
                        ID, ADDRESS, JAVA_BOOLEAN)), NNG.function(prefix + "set_int",
                        FunctionDescriptor.of(JAVA_INT, ID, ADDRESS, JAVA_INT)),
                        NNG.function(prefix + "get_int", FunctionDescriptor.of(JAVA_INT, ID,
                                ADDRESS, ADDRESS)), NNG.function(prefix + "start",
                                FunctionDescriptor.of(JAVA_INT, ID, JAVA_INT)));
            }
        }

        /** An {@code int nng_X0_open(nng_socket *)}. */
        private static MethodHandle open(String name) {
            return NNG.function(name, FunctionDescriptor.of(JAVA_INT, ADDRESS));
        }

        /** {@code "nng 1.5.2"}, from the running library; null without it. */
        private static String version(MethodHandle nngVersion) {
            try {
                return nngVersion == null ? null
                        : "nng " + SharedLibrary.string((MemorySegment) nngVersion.invokeExact());
            } catch (Throwable e) {
                throw unexpected(e);
            }
        }
    }

    /** Why NNG cannot run in this process, or null when libnng is loaded. */
    public static String problem() {
        return Lib.NNG.problem();
    }

    /** {@code "nng 1.5.2"}: the library this process runs (capabilities' {@code library}). */
    public static String version() {
        return Lib.VERSION;
    }

    /** What a socket speaks. */
    enum Protocol {
        REQ, REP, PUSH, PULL;

        MethodHandle opener() {
            return switch (this) {
                case REQ -> Lib.REQ0_OPEN;
                case REP -> Lib.REP0_OPEN;
                case PUSH -> Lib.PUSH0_OPEN;
                case PULL -> Lib.PULL0_OPEN;
            };
        }
    }

    /** A call returning libnng's int result. */
    @FunctionalInterface
    private interface Call {
        int invoke(Arena local) throws Throwable;
    }

    /** Runs call with an arena for its arguments; a result other than 0 is what's failure. */
    private static void call(String what, Call call) throws IOException {
        int rv;
        try (Arena local = Arena.ofConfined()) {
            rv = call.invoke(local);
        } catch (Throwable e) {
            throw unexpected(e);
        }
        check(what, rv);
    }

    /** 0 is success; NNG_ETIMEDOUT a timeout; anything else io, naming libnng's reason. */
    private static void check(String what, int rv) throws IOException {
        if (rv == 0) {
            return;
        }
        if (rv == ETIMEDOUT) {
            throw new ReceiveTimeoutException(what + ": nothing within --io-timeout");
        }
        throw new NngException(what + ": " + strerror(rv), rv);
    }

    private static String strerror(int rv) {
        try {
            return SharedLibrary.string((MemorySegment) Lib.STRERROR.invokeExact(rv));
        } catch (Throwable e) {
            return "nng error " + rv;
        }
    }

    /** A libnng failure that is not a timeout; {@link #closed()} once its socket is closed. */
    public static final class NngException extends IOException {
        private static final long serialVersionUID = 1L;
        private final int rv;

        NngException(String message, int rv) {
            super(message);
            this.rv = rv;
        }

        /** NNG_ECLOSED: the socket was closed (the server is stopping). */
        public boolean closed() {
            return rv == ECLOSED;
        }
    }

    /**
     * A socket of one protocol. Its id lives in memory the garbage collector frees, so that a
     * thread closing it under another thread's call never frees what that call reads.
     */
    static final class Socket implements AutoCloseable {
        private final MemorySegment id = Arena.ofAuto().allocate(Lib.ID);
        private final AtomicBoolean closed = new AtomicBoolean();

        Socket(Protocol protocol) throws IOException {
            if (problem() != null) {
                throw new IOException(problem());
            }
            call("nng " + protocol + " socket", local -> (int) protocol.opener().invokeExact(id));
        }

        void setMillis(String option, int ms) throws IOException {
            call("nng option " + option,
                    local -> (int) Lib.SET_MS.invokeExact(id, local.allocateFrom(option), ms));
        }

        void setInt(String option, int value) throws IOException {
            call("nng option " + option,
                    local -> (int) Lib.SET_INT.invokeExact(id, local.allocateFrom(option), value));
        }

        void setSize(String option, long bytes) throws IOException {
            call("nng option " + option,
                    local -> (int) Lib.SET_SIZE.invokeExact(id, local.allocateFrom(option), bytes));
        }

        /**
         * Listens at url (tcp: with TCP_NODELAY; ipc: the socket file made with mode ipcMode, 0
         * leaves the library's).
         *
         * @return the TCP port it got; 0 for ipc
         */
        int listen(String url, int ipcMode) throws IOException {
            MemorySegment listener = endpoint(Lib.LISTENER, url);
            String what = "listen " + url;
            if (ipcMode != 0) { // the file is made with this mode, never wider for a moment
                call(what + ": permissions", local -> (int) Lib.LISTENER.setInt().invokeExact(
                        listener, local.allocateFrom(IPC_PERMISSIONS), ipcMode));
            }
            call(what, local -> (int) Lib.LISTENER.start().invokeExact(listener, 0));
            if (!url.startsWith(SocketPair.TCP)) {
                return 0;
            }
            MemorySegment port = Arena.ofAuto().allocate(JAVA_INT);
            call(what + ": bound port", local -> (int) Lib.LISTENER.getInt().invokeExact(listener,
                    local.allocateFrom(TCP_BOUND_PORT), port));
            return port.get(JAVA_INT, 0);
        }

        /**
         * Dials url (tcp: with TCP_NODELAY) and waits for the connection: flags 0, so a server
         * that is not there fails at once (an io error) instead of being retried in the
         * background, and the pipe exists when the first frame goes.
         */
        void dial(String url) throws IOException {
            MemorySegment dialer = endpoint(Lib.DIALER, url);
            call("dial " + url, local -> (int) Lib.DIALER.start().invokeExact(dialer, 0));
        }

        /**
         * A listener or dialer of this socket for url, not started; over tcp with TCP_NODELAY,
         * set on the endpoint it applies to (libnng deprecates it on a socket).
         */
        private MemorySegment endpoint(Lib.Endpoint kind, String url) throws IOException {
            MemorySegment made = Arena.ofAuto().allocate(Lib.ID);
            call(url, local -> (int) kind.create().invokeExact(made, id, local.allocateFrom(url)));
            if (url.startsWith(SocketPair.TCP)) {
                call(url + ": " + TCP_NODELAY, local -> (int) kind.setBool().invokeExact(made,
                        local.allocateFrom(TCP_NODELAY), true));
            }
            return made;
        }

        /**
         * One whole message of the n bytes at data (copied into a message of the library's);
         * what names it in a failure.
         */
        void send(MemorySegment data, long n, String what) throws IOException {
            int rv;
            try {
                rv = (int) Lib.SEND.invokeExact(id, data, n, 0);
            } catch (Throwable e) {
                throw unexpected(e);
            }
            if (rv != 0) { // the failure's text only when there is one: not per message
                check("send of " + what + " (" + n + " bytes)", rv);
            }
        }

        /** nng_close, once; safe from any thread, a blocked call on it then fails (closed). */
        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                try {
                    int ignored = (int) Lib.CLOSE.invokeExact(id);
                } catch (Throwable e) {
                    throw unexpected(e);
                }
            }
        }
    }

    /**
     * A received message, the library's until the next receive into it or {@link #release}: no
     * copy is made to receive it. Used by one thread.
     */
    static final class Message {
        private final MemorySegment out = Arena.ofAuto().allocate(ADDRESS);
        private MemorySegment msg = MemorySegment.NULL;

        /** Receives the next message of socket in place of this one. */
        void receive(Socket socket, String what) throws IOException {
            receive(socket, 0, what);
        }

        /** Takes a message socket has already (NNG_FLAG_NONBLOCK); false when it has none. */
        boolean tryReceive(Socket socket, String what) throws IOException {
            return receive(socket, NONBLOCK, what);
        }

        private boolean receive(Socket socket, int flags, String what) throws IOException {
            release();
            int rv;
            try {
                rv = (int) Lib.RECVMSG.invokeExact(socket.id, out, flags);
            } catch (Throwable e) {
                throw unexpected(e);
            }
            if (rv == EAGAIN && flags == NONBLOCK) {
                return false;
            }
            check(what, rv);
            msg = out.get(ADDRESS, 0);
            return true;
        }

        long size() {
            try {
                return (long) Lib.MSG_LEN.invokeExact(msg);
            } catch (Throwable e) {
                throw unexpected(e);
            }
        }

        /** The message's body, valid until the next receive into this or {@link #release}. */
        MemorySegment body() {
            try {
                return ((MemorySegment) Lib.MSG_BODY.invokeExact(msg)).reinterpret(size());
            } catch (Throwable e) {
                throw unexpected(e);
            }
        }

        /** Frees the message held, if any. */
        void release() {
            if (!msg.equals(MemorySegment.NULL)) {
                try {
                    Lib.MSG_FREE.invokeExact(msg);
                } catch (Throwable e) {
                    throw unexpected(e);
                } finally {
                    msg = MemorySegment.NULL;
                }
            }
        }
    }
}
