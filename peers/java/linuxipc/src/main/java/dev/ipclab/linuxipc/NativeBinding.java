package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * How the library reaches the C library: {@link FfmBinding} (java.lang.foreign downcalls) or
 * {@link JniBinding} (native methods of libipclab_linuxipc_jni.so), or its subclass
 * {@link JniCopyBinding}. The process uses one, fixed at the first call ({@link LinuxIpc}), held
 * in a static final field ({@link Native#BINDING}) so the JIT sees one receiver: a call costs
 * the binding's transition, no lookup.
 *
 * <p>Every method returns the call's result, or {@code -errno} when it failed (the kernel's own
 * convention), so neither binding needs a per-thread errno for the caller to read afterwards.
 * Buffers are native memory given as segments; the JNI bindings pass their addresses. The
 * message calls also take a Java {@code byte[]}: jni-copy copies it in C per call (its reason
 * to exist); the others go through a native buffer made for the call (a convenience).
 */
sealed interface NativeBinding permits FfmBinding, JniBinding {
    /** The binding's name, {@code ffm}, {@code jni} or {@code jni-copy}. */
    String name();

    int msgget(int key, int flags);

    /** msgsnd of the msgbuf at message (mtype already written), textLength text bytes. */
    int msgsnd(int id, MemorySegment message, long textLength, int flags);

    long msgrcv(int id, MemorySegment message, long capacity, long type, int flags);

    /** msgctl(id, IPC_RMID, NULL). */
    int msgctlRemove(int id);

    int semget(int key, int count, int flags);

    /** semop with one sembuf {sem, delta, 0}. */
    int semop(int id, int sem, int delta);

    /** semtimedop with one sembuf {sem, delta, 0} and a relative timeout. */
    int semtimedop(int id, int sem, int delta, long timeoutNanos);

    /** semctl without a fourth argument (GETVAL, GETNCNT, IPC_RMID). */
    int semctl(int id, int sem, int cmd);

    /** semctl(id, sem, SETVAL, value). */
    int semctlSetValue(int id, int sem, int value);

    /** semctl(id, 0, cmd, array) for SETALL and GETALL: array holds unsigned shorts. */
    int semctlArray(int id, int cmd, MemorySegment array);

    int shmget(int key, long size, int flags);

    /** shmctl IPC_STAT's shm_segsz. */
    long shmSegmentSize(int id);

    /** shmat(id, NULL, flags): the address. */
    long shmat(int id, int flags);

    int shmdt(long address);

    /** shmctl(id, IPC_RMID, NULL). */
    int shmctlRemove(int id);

    int mqOpen(String name, int flags);

    /** mq_open(name, flags, mode, attr) with mq_maxmsg and mq_msgsize set. */
    int mqCreate(String name, int flags, int mode, long maxMessages, long messageSize);

    int mqSend(int mqd, MemorySegment src, long length, int priority);

    long mqReceive(int mqd, MemorySegment dst, long capacity);

    /** mq_timedreceive with a CLOCK_REALTIME deadline of now plus timeoutNanos. */
    long mqTimedReceive(int mqd, MemorySegment dst, long capacity, long timeoutNanos);

    /** mq_getattr into attr (a struct mq_attr of 64 bytes). */
    int mqGetAttributes(int mqd, MemorySegment attr);

    int mqClose(int mqd);

    int mqUnlink(String name);

    int mkfifo(String path, int mode);

    /** futex(FUTEX_WAIT) at address; a negative timeout waits without one. */
    long futexWait(long address, int expected, long timeoutNanos);

    /** futex(FUTEX_WAKE) at address. */
    long futexWake(long address, int count);

    /** msgsnd of text[0, length) as one message of the type (the caller checked the bounds). */
    default int msgsnd(int id, long type, byte[] text, int length, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment message = arena.allocate(SysVMessageQueue.TEXT_OFFSET + length, 8);
            message.set(JAVA_LONG, 0, type);
            MemorySegment.copy(text, 0, message, JAVA_BYTE, SysVMessageQueue.TEXT_OFFSET, length);
            return msgsnd(id, message, length, flags);
        }
    }

    /** msgrcv of at most capacity text bytes into text[0, capacity): the text length. */
    default long msgrcv(int id, byte[] text, int capacity, long type, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment message = arena.allocate(SysVMessageQueue.TEXT_OFFSET + capacity, 8);
            long n = msgrcv(id, message, capacity, type, flags);
            if (n > 0) {
                MemorySegment.copy(message, JAVA_BYTE, SysVMessageQueue.TEXT_OFFSET, text, 0, (int) n);
            }
            return n;
        }
    }

    /** mq_send of data[0, length). */
    default int mqSend(int mqd, byte[] data, int length, int priority) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(Math.max(1, length));
            MemorySegment.copy(data, 0, src, JAVA_BYTE, 0, length);
            return mqSend(mqd, src, length, priority);
        }
    }

    /**
     * mq_timedreceive (a negative timeout: mq_receive) into data[0, capacity): the message
     * length.
     */
    default long mqReceive(int mqd, byte[] data, int capacity, long timeoutNanos) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(Math.max(1, capacity));
            long n = timeoutNanos < 0 ? mqReceive(mqd, dst, capacity)
                    : mqTimedReceive(mqd, dst, capacity, timeoutNanos);
            if (n > 0) {
                MemorySegment.copy(dst, JAVA_BYTE, 0, data, 0, (int) n);
            }
            return n;
        }
    }
}
