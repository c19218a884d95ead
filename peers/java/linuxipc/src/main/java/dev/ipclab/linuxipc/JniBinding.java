package dev.ipclab.linuxipc;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * The JNI binding: native methods of {@code libipclab_linuxipc_jni.so}
 * (peers/native/src/linuxipc_jni/). Buffers are the library's native segments, handed over as
 * their addresses (jlong), as JNI code over direct ByteBuffers does once it holds the address
 * (Netty's native transports pass addresses the same way): no copy, no
 * GetPrimitiveArrayCritical, no GetDirectBufferAddress per call. Each native method returns the
 * result or -errno (see {@link NativeBinding}). {@link JniCopyBinding} is this binding with the
 * message calls on byte[] done by the library's copying entry points, declared here beside the
 * others (the JNI symbols name this class).
 */
sealed class JniBinding implements NativeBinding permits JniCopyBinding {
    private static boolean loaded;
    private static JniBinding instance;

    JniBinding() {}

    /** Loads the library (once) and returns the binding. */
    static synchronized JniBinding load(Path library) {
        loadLibrary(library);
        if (instance == null) {
            instance = new JniBinding();
        }
        return instance;
    }

    /** Loads the library once, for whichever of the two JNI bindings asks first. */
    static void loadLibrary(Path library) {
        synchronized (JniBinding.class) {
            if (!loaded) {
                System.load(library.toAbsolutePath().toString());
                loaded = true;
            }
        }
    }

    @Override
    public String name() {
        return "jni";
    }

    @Override
    public native int msgget(int key, int flags);

    @Override
    public int msgsnd(int id, MemorySegment message, long textLength, int flags) {
        return msgsnd0(id, address(message), textLength, flags);
    }

    @Override
    public long msgrcv(int id, MemorySegment message, long capacity, long type, int flags) {
        return msgrcv0(id, address(message), capacity, type, flags);
    }

    @Override
    public native int msgctlRemove(int id);

    @Override
    public native int semget(int key, int count, int flags);

    @Override
    public native int semop(int id, int sem, int delta);

    @Override
    public native int semtimedop(int id, int sem, int delta, long timeoutNanos);

    @Override
    public native int semctl(int id, int sem, int cmd);

    @Override
    public native int semctlSetValue(int id, int sem, int value);

    @Override
    public int semctlArray(int id, int cmd, MemorySegment array) {
        return semctlArray0(id, cmd, address(array));
    }

    @Override
    public native int shmget(int key, long size, int flags);

    @Override
    public native long shmSegmentSize(int id);

    @Override
    public native long shmat(int id, int flags);

    @Override
    public native int shmdt(long address);

    @Override
    public native int shmctlRemove(int id);

    @Override
    public native int mqOpen(String name, int flags);

    @Override
    public native int mqCreate(String name, int flags, int mode, long maxMessages, long messageSize);

    @Override
    public int mqSend(int mqd, MemorySegment src, long length, int priority) {
        return mqSend0(mqd, address(src), length, priority);
    }

    @Override
    public long mqReceive(int mqd, MemorySegment dst, long capacity) {
        return mqReceive0(mqd, address(dst), capacity);
    }

    @Override
    public long mqTimedReceive(int mqd, MemorySegment dst, long capacity, long timeoutNanos) {
        return mqTimedReceive0(mqd, address(dst), capacity, timeoutNanos);
    }

    @Override
    public int mqGetAttributes(int mqd, MemorySegment attr) {
        return mqGetAttributes0(mqd, address(attr));
    }

    @Override
    public native int mqClose(int mqd);

    @Override
    public native int mqUnlink(String name);

    @Override
    public native int mkfifo(String path, int mode);

    @Override
    public native long futexWait(long address, int expected, long timeoutNanos);

    @Override
    public native long futexWake(long address, int count);

    /** A segment's address; a heap segment has none a C function could use. */
    private static long address(MemorySegment segment) {
        if (!segment.isNative()) {
            throw new IllegalArgumentException("the JNI binding needs native memory, not " + segment);
        }
        return segment.address();
    }

    private static native int msgsnd0(int id, long message, long textLength, int flags);

    private static native long msgrcv0(int id, long message, long capacity, long type, int flags);

    private static native int semctlArray0(int id, int cmd, long array);

    private static native int mqSend0(int mqd, long src, long length, int priority);

    private static native long mqReceive0(int mqd, long dst, long capacity);

    private static native long mqTimedReceive0(int mqd, long dst, long capacity, long timeoutNanos);

    private static native int mqGetAttributes0(int mqd, long attr);

    // jni-copy's entry points (JniCopyBinding): the byte[] itself goes to C, which copies it per
    // call. Bounds are the caller's to check (length and capacity within the array).

    /** msgsnd of data[0, length) as a message of the type: 0 or -errno. */
    static native int msgsndCopy(int id, long type, byte[] data, int length, int flags);

    /** msgrcv of at most capacity text bytes into data: the text length or -errno. */
    static native long msgrcvCopy(int id, byte[] data, int capacity, long type, int flags);

    /** mq_send of data[0, length): 0 or -errno. */
    static native int mqSendCopy(int mqd, byte[] data, int length, int priority);

    /** mq_timedreceive (timeoutNanos &lt; 0: mq_receive) into data: the length or -errno. */
    static native long mqTimedReceiveCopy(int mqd, byte[] data, int capacity, long timeoutNanos);
}
