package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * A POSIX message queue ({@code mq_open}, {@code mq_send}, {@code mq_receive},
 * {@code mq_timedreceive}, {@code mq_getattr}, {@code mq_close}, {@code mq_unlink}).
 * {@code mq_open} is variadic and is called with {@code Linker.Option.firstVariadicArg}.
 * Sending and receiving with a caller-owned native segment allocates nothing. Close closes the
 * descriptor; the queue itself stays until {@link #unlink(String)}.
 */
public final class PosixMessageQueue implements AutoCloseable {
    /** Open for receiving only. */
    public static final int O_RDONLY = Libc.O_RDONLY;
    /** Open for sending only. */
    public static final int O_WRONLY = Libc.O_WRONLY;
    /** Open for both. */
    public static final int O_RDWR = Libc.O_RDWR;
    /** Or-ed into the access mode: a send to a full queue fails with {@code EAGAIN}. */
    public static final int O_NONBLOCK = Libc.O_NONBLOCK;

    private static final long MQ_ATTR_SIZE = 64;

    /**
     * A queue's attributes ({@code struct mq_attr}).
     *
     * @param flags {@code mq_flags} (0 or {@code O_NONBLOCK})
     * @param maxMessages {@code mq_maxmsg}
     * @param messageSize {@code mq_msgsize}
     * @param currentMessages {@code mq_curmsgs}
     */
    public record Attributes(long flags, long maxMessages, long messageSize, long currentMessages) {}

    private final String name;
    private final int mqd;
    private volatile boolean closed;

    private PosixMessageQueue(String name, int mqd) {
        this.name = name;
        this.mqd = mqd;
    }

    /**
     * Creates a queue exclusively ({@code O_CREAT | O_EXCL | O_RDWR}).
     *
     * @param name the name, {@code /something} without further slashes
     * @param maxMessages {@code mq_maxmsg}
     * @param messageSize {@code mq_msgsize}
     * @param mode permission bits, e.g. {@code 0600}
     * @return the open queue
     * @throws LinuxIpcException e.g. {@code EEXIST}, {@code EINVAL} (limits), {@code EMFILE}
     */
    public static PosixMessageQueue create(String name, long maxMessages, long messageSize, int mode)
            throws LinuxIpcException {
        return create(name, O_RDWR, maxMessages, messageSize, mode);
    }

    /**
     * Creates a queue exclusively ({@code O_CREAT | O_EXCL}) with the given access, e.g. a
     * receiver that never sends on it ({@link #O_RDONLY}).
     *
     * @param name the name, {@code /something} without further slashes
     * @param access {@link #O_RDONLY}, {@link #O_WRONLY} or {@link #O_RDWR}, maybe with
     *     {@link #O_NONBLOCK}
     * @param maxMessages {@code mq_maxmsg}
     * @param messageSize {@code mq_msgsize}
     * @param mode permission bits, e.g. {@code 0600}
     * @return the open queue
     * @throws LinuxIpcException e.g. {@code EEXIST}, {@code EINVAL} (limits), {@code EMFILE}
     */
    public static PosixMessageQueue create(String name, int access, long maxMessages,
            long messageSize, int mode) throws LinuxIpcException {
        int mqd = Native.BINDING.mqCreate(name, Libc.O_CREAT | Libc.O_EXCL | access,
                mode & 0777, maxMessages, messageSize);
        return new PosixMessageQueue(name, (int) Native.check(mqd, "mq_open"));
    }

    /**
     * Opens an existing queue.
     *
     * @param name the name
     * @param access {@link #O_RDONLY}, {@link #O_WRONLY} or {@link #O_RDWR}, maybe with
     *     {@link #O_NONBLOCK} (then a send to a full queue fails with {@code EAGAIN})
     * @return the open queue
     * @throws LinuxIpcException {@code ENOENT} if there is none, {@code EACCES} if not allowed
     *     (or if the name has more than one slash)
     */
    public static PosixMessageQueue open(String name, int access) throws LinuxIpcException {
        int mqd = Native.BINDING.mqOpen(name, access);
        return new PosixMessageQueue(name, (int) Native.check(mqd, "mq_open"));
    }

    /**
     * Removes a queue's name ({@code mq_unlink}); open descriptors keep working.
     *
     * @param name the name
     * @throws LinuxIpcException {@code ENOENT} if there is none
     */
    public static void unlink(String name) throws LinuxIpcException {
        Native.check(Native.BINDING.mqUnlink(name), "mq_unlink");
    }

    /**
     * The name the queue was opened with.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * Sends a message (blocking while the queue is full); restarted after {@code EINTR}.
     *
     * @param src where the bytes are
     * @param length how many, at most the queue's message size
     * @param priority the priority (0 is lowest)
     * @throws LinuxIpcException e.g. {@code EMSGSIZE}, {@code EBADF} if not open for sending
     */
    public void send(MemorySegment src, long length, int priority) throws LinuxIpcException {
        Bounds.check(0, length, src.byteSize());
        int rc;
        do {
            rc = Native.BINDING.mqSend(mqd, src, length, priority);
        } while (Native.again(rc, "mq_send"));
    }

    /**
     * Receives the oldest message of the highest priority (blocking until one comes).
     *
     * @param dst where to put it; at least the queue's message size
     * @return the message length
     * @throws LinuxIpcException e.g. {@code EMSGSIZE} if dst is smaller than the message size
     */
    public long receive(MemorySegment dst) throws LinuxIpcException {
        long n;
        do {
            n = Native.BINDING.mqReceive(mqd, dst, dst.byteSize());
        } while (Native.again(n, "mq_receive"));
        return n;
    }

    /**
     * Like {@link #receive} but gives up after the timeout ({@code mq_timedreceive} with a
     * {@code CLOCK_REALTIME} deadline computed now). Not for concurrent use by several threads.
     *
     * @param dst where to put it
     * @param timeoutNanos the longest wait
     * @return the message length, or -1 if the timeout expired
     * @throws LinuxIpcException as mq_timedreceive reports
     */
    public long receive(MemorySegment dst, long timeoutNanos) throws LinuxIpcException {
        long n;
        do {
            n = Native.BINDING.mqTimedReceive(mqd, dst, dst.byteSize(), timeoutNanos);
        } while (Native.again(n, "mq_timedreceive", Libc.ETIMEDOUT));
        return n < 0 ? -1 : n;
    }

    /**
     * Sends a byte array as one message (see {@link #send(byte[], int, int)}).
     *
     * @param message the bytes
     * @param priority the priority
     * @throws LinuxIpcException as mq_send reports
     */
    public void send(byte[] message, int priority) throws LinuxIpcException {
        send(message, message.length, priority);
    }

    /**
     * Sends message[0, length) (blocking while the queue is full); restarted after
     * {@code EINTR}. With the {@code jni-copy} binding the array goes to C, which copies it per
     * call (GetByteArrayElements of the whole array, so an array of the message's length costs
     * least); otherwise through a native buffer made for the call.
     *
     * @param message the bytes
     * @param length how many, from the array's start, at most the queue's message size
     * @param priority the priority
     * @throws LinuxIpcException as mq_send reports
     * @throws IndexOutOfBoundsException if length is outside the array
     */
    public void send(byte[] message, int length, int priority) throws LinuxIpcException {
        Bounds.checkArray(message, 0, length);
        int rc;
        do {
            rc = Native.BINDING.mqSend(mqd, message, length, priority);
        } while (Native.again(rc, "mq_send"));
    }

    /**
     * Receives the oldest message of the highest priority into dst (blocking until one comes).
     *
     * @param dst where to put it; at least the queue's message size long
     * @return the message length
     * @throws LinuxIpcException e.g. {@code EMSGSIZE} if dst is shorter than the message size
     */
    public int receive(byte[] dst) throws LinuxIpcException {
        long n;
        do {
            n = Native.BINDING.mqReceive(mqd, dst, dst.length, -1);
        } while (Native.again(n, "mq_receive"));
        return (int) n;
    }

    /**
     * Like {@link #receive(byte[])} but gives up after the timeout ({@code mq_timedreceive}).
     * Not for concurrent use by several threads.
     *
     * @param dst where to put it
     * @param timeoutNanos the longest wait, at least 0
     * @return the message length, or -1 if the timeout expired
     * @throws LinuxIpcException as mq_timedreceive reports
     */
    public int receive(byte[] dst, long timeoutNanos) throws LinuxIpcException {
        if (timeoutNanos < 0) {
            throw new IllegalArgumentException("timeoutNanos must not be negative");
        }
        long n;
        do {
            n = Native.BINDING.mqReceive(mqd, dst, dst.length, timeoutNanos);
        } while (Native.again(n, "mq_timedreceive", Libc.ETIMEDOUT));
        return n < 0 ? -1 : (int) n;
    }

    /**
     * Receives one message into a new array (allocates).
     *
     * @return the message bytes
     * @throws LinuxIpcException as mq_receive reports
     */
    public byte[] receive() throws LinuxIpcException {
        byte[] dst = new byte[(int) attributes().messageSize()];
        return Arrays.copyOf(dst, receive(dst));
    }

    /**
     * The queue's attributes ({@code mq_getattr}).
     *
     * @return them
     * @throws LinuxIpcException as mq_getattr reports
     */
    public Attributes attributes() throws LinuxIpcException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(MQ_ATTR_SIZE, 8);
            Native.check(Native.BINDING.mqGetAttributes(mqd, attr), "mq_getattr");
            return new Attributes(attr.get(JAVA_LONG, 0), attr.get(JAVA_LONG, 8),
                    attr.get(JAVA_LONG, 16), attr.get(JAVA_LONG, 24));
        }
    }

    /**
     * Closes the descriptor ({@code mq_close}). Idempotent.
     *
     * @throws LinuxIpcException as mq_close reports
     */
    @Override
    public synchronized void close() throws LinuxIpcException {
        if (closed) {
            return;
        }
        closed = true;
        Native.check(Native.BINDING.mqClose(mqd), "mq_close");
    }

    @Override
    public String toString() {
        return "PosixMessageQueue[" + name + ", mqd=" + mqd + "]";
    }
}
