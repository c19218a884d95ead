package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * A System V message queue ({@code msgget}, {@code msgsnd}, {@code msgrcv}, {@code msgctl}).
 *
 * <p>Messages live in a caller-owned native buffer laid out as {@code struct msgbuf}: an 8-byte
 * {@code mtype} followed by the text (see {@link #allocateMessage}); sending and receiving with
 * such a buffer allocates nothing. The byte-array methods hand the array to the binding:
 * {@code jni-copy} copies it in C per call, as lajp did; the others copy it through a native
 * buffer made for the call.
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
     * Sends a byte array as one message. With the {@code jni-copy} binding the array goes to C,
     * which copies it per call (see {@link LinuxIpc.Binding#JNI_COPY}); otherwise through a native
     * buffer made for the call.
     *
     * @param type the message type, at least 1
     * @param text the text
     * @throws LinuxIpcException as msgsnd reports
     */
    public void send(long type, byte[] text) throws LinuxIpcException {
        send(type, text, text.length);
    }

    /**
     * Sends text[0, length) as one message (blocking while the queue is full); restarted after
     * {@code EINTR}. jni-copy copies the whole array per call (GetByteArrayElements), so an
     * array of the message's length costs least.
     *
     * @param type the message type, at least 1
     * @param text the text
     * @param length text bytes, from the array's start
     * @throws LinuxIpcException as msgsnd reports
     * @throws IndexOutOfBoundsException if length is outside the array
     */
    public void send(long type, byte[] text, int length) throws LinuxIpcException {
        Bounds.checkArray(text, 0, length);
        int rc;
        do {
            rc = Native.BINDING.msgsnd(id, type, text, length, 0);
        } while (Native.again(rc, "msgsnd"));
    }

    /**
     * Receives one message of the type into text (blocking until one comes); restarted after
     * {@code EINTR}. jni-copy receives into a malloc'ed buffer and copies the text out with
     * SetByteArrayRegion.
     *
     * @param text where the text goes; its length is the largest text accepted
     * @param type msgrcv's msgtyp
     * @return the text length
     * @throws LinuxIpcException as msgrcv reports ({@code E2BIG} for a longer message)
     */
    public int receive(byte[] text, long type) throws LinuxIpcException {
        long n;
        do {
            n = Native.BINDING.msgrcv(id, text, text.length, type, 0);
        } while (Native.again(n, "msgrcv"));
        return (int) n;
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
        byte[] text = new byte[maxText];
        return Arrays.copyOf(text, receive(text, type));
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
