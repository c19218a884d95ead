package dev.ipclab.peer.transport;

import static dev.ipclab.peer.transport.Downcalls.unexpected;
import static dev.ipclab.peer.transport.Zmq.LAST_ENDPOINT;
import static dev.ipclab.peer.transport.Zmq.LINGER;
import static dev.ipclab.peer.transport.Zmq.MAXMSGSIZE;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.ipclab.peer.transport.Zmq.Context;
import dev.ipclab.peer.transport.Zmq.Lib;
import dev.ipclab.peer.transport.Zmq.ZmqException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * libzmq's objects that hold memory for the library, through {@link Zmq}'s downcalls: a socket, a
 * received message and a poll. What they share: that memory, freed on {@link #close}, the errno
 * their calls capture into it, and a call's failure as an IOException (EAGAIN, a send or receive
 * past its timeout: {@link ReceiveTimeoutException}; else a {@link ZmqException}), EINTR retried
 * where the call may be.
 */
abstract class ZmqNative implements AutoCloseable {
    private static final short POLLIN = 1;
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;

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

    /** A socket of one type with ZMQ_LINGER 0, used by one thread at a time. */
    static final class Socket extends ZmqNative {
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
    static final class Message extends ZmqNative {
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
    static final class Poll extends ZmqNative {
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
