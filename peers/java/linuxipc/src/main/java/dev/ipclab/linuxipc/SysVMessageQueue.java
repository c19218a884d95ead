package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A System V message queue ({@code msgget}, {@code msgsnd}, {@code msgrcv}, {@code msgctl}).
 *
 * <p>Messages live in a caller-owned native buffer laid out as {@code struct msgbuf}: an 8-byte
 * {@code mtype} followed by the text (see {@link #allocateMessage}); sending and receiving with
 * such a buffer allocates nothing. The byte-array methods are conveniences that allocate.
 * Blocking calls are restarted after {@code EINTR}. The handle is thread-safe; the queue itself
 * lives in the kernel until {@link #remove()}.
 */
public final class SysVMessageQueue extends SysVObject {
    /** Offset of the message text in a message buffer (after the 8-byte mtype). */
    public static final long TEXT_OFFSET = 8;

    private SysVMessageQueue(int key, int id) {
        super(key, id);
    }

    /**
     * Creates a new queue exclusively ({@code IPC_CREAT | IPC_EXCL}).
     *
     * @param key the System V key (not {@code IPC_PRIVATE} unless a private queue is wanted)
     * @param mode permission bits, e.g. {@code 0600}
     * @return the queue
     * @throws LinuxIpcException e.g. {@code EEXIST} if a queue with the key exists
     */
    public static SysVMessageQueue create(int key, int mode) throws LinuxIpcException {
        return get(key, Libc.IPC_CREAT | Libc.IPC_EXCL | (mode & 0777));
    }

    /**
     * Opens an existing queue.
     *
     * @param key the System V key
     * @return the queue
     * @throws LinuxIpcException {@code ENOENT} if there is none, {@code EACCES} if not allowed
     */
    public static SysVMessageQueue open(int key) throws LinuxIpcException {
        return get(key, 0);
    }

    /**
     * Calls {@code msgget(key, flags)} as given.
     *
     * @param key the System V key
     * @param flags {@code IPC_CREAT}, {@code IPC_EXCL} and permission bits requested
     * @return the queue
     * @throws LinuxIpcException as msgget reports
     */
    public static SysVMessageQueue get(int key, int flags) throws LinuxIpcException {
        int id = Native.BINDING.msgget(key, flags);
        return new SysVMessageQueue(key, (int) Native.check(id, "msgget"));
    }

    /**
     * Allocates a message buffer ({@code struct msgbuf}) for texts of up to maxText bytes.
     *
     * @param arena where the buffer lives
     * @param maxText the largest text it must hold
     * @return a segment of {@code 8 + maxText} bytes; the text starts at {@link #TEXT_OFFSET}
     */
    public static MemorySegment allocateMessage(Arena arena, long maxText) {
        return arena.allocate(TEXT_OFFSET + maxText, 8);
    }

    /**
     * Sends the text already in the buffer (blocking while the queue is full).
     *
     * @param message a message buffer from {@link #allocateMessage}
     * @param type the message type, at least 1; written into the buffer's mtype
     * @param textLength text bytes at {@link #TEXT_OFFSET}
     * @throws LinuxIpcException e.g. {@code EIDRM} when the queue is removed, {@code EINVAL}
     * @throws IndexOutOfBoundsException if the text does not fit the buffer
     */
    public void send(MemorySegment message, long type, long textLength) throws LinuxIpcException {
        send(message, type, textLength, 0);
    }

    /**
     * Sends the text already in the buffer with msgsnd flags (e.g. {@code IPC_NOWAIT} = 04000).
     *
     * @param message a message buffer from {@link #allocateMessage}
     * @param type the message type, at least 1
     * @param textLength text bytes at {@link #TEXT_OFFSET}
     * @param flags msgsnd flags
     * @throws LinuxIpcException as msgsnd reports ({@code EAGAIN} when full and non-blocking)
     */
    public void send(MemorySegment message, long type, long textLength, int flags)
            throws LinuxIpcException {
        if (textLength < 0 || TEXT_OFFSET + textLength > message.byteSize()) {
            throw new IndexOutOfBoundsException("text of " + textLength + " bytes in a buffer of "
                    + message.byteSize());
        }
        message.set(JAVA_LONG, 0, type);
        int rc;
        do {
            rc = Native.BINDING.msgsnd(id, message, textLength, flags);
        } while (Native.again(rc, "msgsnd"));
    }

    /**
     * Receives one message of the type into the buffer (blocking until one comes).
     *
     * @param message a message buffer from {@link #allocateMessage}; gets mtype and text
     * @param type msgrcv's msgtyp: 0 any, &gt; 0 exactly that type, &lt; 0 lowest up to |type|
     * @return the text length
     * @throws LinuxIpcException e.g. {@code EIDRM} when the queue is removed, {@code E2BIG}
     *     when the message is longer than the buffer
     */
    public long receive(MemorySegment message, long type) throws LinuxIpcException {
        return receive(message, type, 0);
    }

    /**
     * Receives one message with msgrcv flags (e.g. {@code IPC_NOWAIT} = 04000).
     *
     * @param message a message buffer from {@link #allocateMessage}
     * @param type msgrcv's msgtyp
     * @param flags msgrcv flags
     * @return the text length
     * @throws LinuxIpcException as msgrcv reports ({@code ENOMSG} when empty and non-blocking)
     */
    public long receive(MemorySegment message, long type, int flags) throws LinuxIpcException {
        long capacity = message.byteSize() - TEXT_OFFSET;
        long n;
        do {
            n = Native.BINDING.msgrcv(id, message, capacity, type, flags);
        } while (Native.again(n, "msgrcv"));
        return n;
    }

    /**
     * Sends a byte array as one message (allocates a native buffer).
     *
     * @param type the message type, at least 1
     * @param text the text
     * @throws LinuxIpcException as msgsnd reports
     */
    public void send(long type, byte[] text) throws LinuxIpcException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment message = allocateMessage(arena, text.length);
            MemorySegment.copy(text, 0, message, JAVA_BYTE, TEXT_OFFSET, text.length);
            send(message, type, text.length);
        }
    }

    /**
     * Receives one message into a new byte array (allocates).
     *
     * @param type msgrcv's msgtyp
     * @param maxText the largest text accepted
     * @return the text
     * @throws LinuxIpcException as msgrcv reports
     */
    public byte[] receive(long type, int maxText) throws LinuxIpcException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment message = allocateMessage(arena, maxText);
            long n = receive(message, type);
            return message.asSlice(TEXT_OFFSET, n).toArray(JAVA_BYTE);
        }
    }

    /**
     * Removes the queue ({@code msgctl IPC_RMID}); blocked senders and receivers get
     * {@code EIDRM}.
     *
     * @throws LinuxIpcException e.g. {@code EINVAL} if it is already gone
     */
    public void remove() throws LinuxIpcException {
        remove(id);
    }

    /**
     * Removes a queue by identifier ({@code msgctl IPC_RMID}).
     *
     * @param id the msqid
     * @throws LinuxIpcException as msgctl reports
     */
    public static void remove(int id) throws LinuxIpcException {
        Native.check(Native.BINDING.msgctlRemove(id), "msgctl(IPC_RMID)");
    }
}
