package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The libc downcall handles, constants and errno capture shared by the library. Every handle that
 * can fail captures errno; the capture segment is per thread and allocated once, so a call on the
 * hot path allocates nothing.
 */
final class Libc {
    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int EACCES = 13;
    static final int EEXIST = 17;
    static final int EINVAL = 22;
    static final int ENOMSG = 42;
    static final int EIDRM = 43;
    static final int ENAMETOOLONG = 36;
    static final int EMSGSIZE = 90;
    static final int ENOBUFS = 105;
    static final int ETIMEDOUT = 110;

    static final int IPC_CREAT = 01000;
    static final int IPC_EXCL = 02000;
    static final int IPC_NOWAIT = 04000;
    static final int IPC_RMID = 0;
    static final int IPC_STAT = 2;
    static final int IPC_PRIVATE = 0;
    static final int SHM_RDONLY = 010000;

    static final int O_RDONLY = 0;
    static final int O_WRONLY = 1;
    static final int O_RDWR = 2;
    static final int O_CREAT = 0100;
    static final int O_EXCL = 0200;
    static final int O_NONBLOCK = 04000;

    static final int PROT_READ = 1;
    static final int PROT_WRITE = 2;
    static final int MAP_SHARED = 1;

    static final int CLOCK_REALTIME = 0;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO_OPTION = Linker.Option.captureCallState("errno");
    static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final ThreadLocal<MemorySegment> STATE =
            ThreadLocal.withInitial(() -> Arena.global().allocate(CALL_STATE));

    private static final ThreadLocal<MemorySegment> SCRATCH =
            ThreadLocal.withInitial(() -> Arena.global().allocate(64, 16));

    /** struct timespec { time_t tv_sec; long tv_nsec; } */
    static final long TIMESPEC_SIZE = 16;

    // System V message queues
    static final MethodHandle MSGGET = errnoCall("msgget", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    static final MethodHandle MSGSND = errnoCall("msgsnd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    static final MethodHandle MSGRCV = errnoCall("msgrcv",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT));
    static final MethodHandle MSGCTL = errnoCall("msgctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    // System V semaphores; semctl is variadic after its third argument (union semun).
    static final MethodHandle SEMGET = errnoCall("semget",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    static final MethodHandle SEMOP = errnoCall("semop",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG));
    static final MethodHandle SEMTIMEDOP = errnoCall("semtimedop",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    static final MethodHandle SEMCTL = errnoCall("semctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    static final MethodHandle SEMCTL_ARG = errnoCall("semctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG),
            Linker.Option.firstVariadicArg(3));
    static final MethodHandle SEMCTL_PTR = errnoCall("semctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS),
            Linker.Option.firstVariadicArg(3));
    // System V shared memory
    static final MethodHandle SHMGET = errnoCall("shmget",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT));
    static final MethodHandle SHMAT = errnoCall("shmat",
            FunctionDescriptor.of(ADDRESS, JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle SHMDT = errnoCall("shmdt", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle SHMCTL = errnoCall("shmctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    // POSIX message queues; mq_open is variadic after its second argument (mode, attributes).
    static final MethodHandle MQ_OPEN = errnoCall("mq_open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle MQ_OPEN_CREATE = errnoCall("mq_open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS),
            Linker.Option.firstVariadicArg(2));
    static final MethodHandle MQ_SEND = errnoCall("mq_send",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    static final MethodHandle MQ_RECEIVE = errnoCall("mq_receive",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    static final MethodHandle MQ_TIMEDRECEIVE = errnoCall("mq_timedreceive",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    static final MethodHandle MQ_GETATTR = errnoCall("mq_getattr",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    static final MethodHandle MQ_CLOSE = errnoCall("mq_close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle MQ_UNLINK = errnoCall("mq_unlink", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    // POSIX shared memory and files
    static final MethodHandle SHM_OPEN = errnoCall("shm_open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    static final MethodHandle SHM_UNLINK = errnoCall("shm_unlink", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle FTRUNCATE = errnoCall("ftruncate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    static final MethodHandle MMAP = errnoCall("mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    static final MethodHandle MUNMAP = errnoCall("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    static final MethodHandle CLOSE = errnoCall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle LSEEK = errnoCall("lseek",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    static final MethodHandle MKFIFO = errnoCall("mkfifo", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle FTOK = errnoCall("ftok", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    // syscall(2): variadic after the number; every argument passed as a long, as glibc reads them.
    static final MethodHandle SYSCALL6 = errnoCall("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                    JAVA_LONG, JAVA_LONG),
            Linker.Option.firstVariadicArg(1));
    // Sockets (Unix domain datagrams) and paths; socklen_t is a u32. Result layout first.
    static final MethodHandle SOCKET = errnoCall("socket", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT);
    static final MethodHandle BIND = errnoCall("bind", JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT);
    static final MethodHandle CONNECT = errnoCall("connect", JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT);
    static final MethodHandle SENDTO = errnoCall("sendto", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG,
            JAVA_INT, ADDRESS, JAVA_INT);
    static final MethodHandle RECVFROM = errnoCall("recvfrom", JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG,
            JAVA_INT, ADDRESS, ADDRESS);
    static final MethodHandle SETSOCKOPT = errnoCall("setsockopt", JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_INT, ADDRESS, JAVA_INT);
    static final MethodHandle GETSOCKOPT = errnoCall("getsockopt", JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_INT, ADDRESS, ADDRESS);
    static final MethodHandle SHUTDOWN = errnoCall("shutdown", JAVA_INT, JAVA_INT, JAVA_INT);
    static final MethodHandle CHMOD = errnoCall("chmod", JAVA_INT, ADDRESS, JAVA_INT);
    static final MethodHandle UNLINK = errnoCall("unlink", JAVA_INT, ADDRESS);
    // Resource usage and renames without replacing (renameat2 RENAME_NOREPLACE, glibc 2.28+).
    static final MethodHandle GETRUSAGE = errnoCall("getrusage", JAVA_INT, JAVA_INT, ADDRESS);
    static final MethodHandle RENAMEAT2 = errnoCall("renameat2", JAVA_INT, JAVA_INT, ADDRESS,
            JAVA_INT, ADDRESS, JAVA_INT);
    static final MethodHandle UMASK = plainCall("umask", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle CLOCK_GETTIME = plainCall("clock_gettime",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle STRERROR = plainCall("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private Libc() {}

    /** This thread's errno capture segment, passed as the first argument of every errno call. */
    static MemorySegment state() {
        return STATE.get();
    }

    /**
     * This thread's 64-byte scratch area for small call arguments (a sembuf at 0, a timespec at
     * 16, an int at 32); valid until this thread's next call into the library.
     */
    static MemorySegment scratch() {
        return SCRATCH.get();
    }

    /** The errno captured by the last call that used this thread's capture segment. */
    static int errno() {
        return (int) ERRNO.get(STATE.get(), 0L);
    }

    /** A new exception for the failed call, with the errno this thread captured. */
    static LinuxIpcException failure(String call) {
        return new LinuxIpcException(call, errno());
    }

    /** The C library's text for an errno value. */
    static String strerror(int errno) {
        try {
            MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
            return text.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    /**
     * A call's result: rc itself when it is not negative, else the call's failure with the errno
     * this thread captured. For calls that return -1 on failure.
     */
    static long check(long rc, String call) throws LinuxIpcException {
        if (rc < 0) {
            throw failure(call);
        }
        return rc;
    }

    /**
     * The loop condition of a call restarted after {@code EINTR}: false once rc is a success,
     * true when the call was interrupted and must be made again; any other failure is thrown.
     */
    static boolean again(long rc, String call) throws LinuxIpcException {
        return again(rc, call, EINTR);
    }

    /**
     * Like {@link #again(long, String)}, but a failure with errno {@code expired} (a timed call's
     * timeout) also ends the loop; the caller sees it as the negative rc.
     */
    static boolean again(long rc, String call, int expired) throws LinuxIpcException {
        if (rc >= 0) {
            return false;
        }
        int errno = errno();
        if (errno == EINTR) {
            return true;
        }
        if (errno == expired) {
            return false;
        }
        throw new LinuxIpcException(call, errno);
    }

    /**
     * What a downcall block threw, as the library reports it: its own exception unchanged,
     * anything else rethrown unchecked. Used as {@code catch (Throwable t) { throw failure(t); }}.
     */
    static LinuxIpcException failure(Throwable t) {
        if (t instanceof LinuxIpcException e) {
            return e;
        }
        throw rethrow(t);
    }

    /** Rethrows what a downcall threw; a checked Throwable from invokeExact cannot happen. */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("downcall failed", t);
    }

    /** Fills ts with CLOCK_REALTIME now plus the given nanoseconds (for mq_timedreceive). */
    static void realtimeDeadline(MemorySegment ts, long timeoutNanos) {
        try {
            int rc = (int) CLOCK_GETTIME.invokeExact(CLOCK_REALTIME, ts);
            if (rc != 0) {
                throw new IllegalStateException("clock_gettime failed");
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
        long sec = ts.get(JAVA_LONG, 0) + timeoutNanos / 1_000_000_000L;
        long nsec = ts.get(JAVA_LONG, 8) + timeoutNanos % 1_000_000_000L;
        if (nsec >= 1_000_000_000L) {
            sec++;
            nsec -= 1_000_000_000L;
        }
        ts.set(JAVA_LONG, 0, sec);
        ts.set(JAVA_LONG, 8, nsec);
    }

    /** Fills ts with a relative timeout (for semtimedop). */
    static void relative(MemorySegment ts, long timeoutNanos) {
        ts.set(JAVA_LONG, 0, timeoutNanos / 1_000_000_000L);
        ts.set(JAVA_LONG, 8, timeoutNanos % 1_000_000_000L);
    }

    private static MethodHandle errnoCall(String name, FunctionDescriptor descriptor,
            Linker.Option... extra) {
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        options[0] = ERRNO_OPTION;
        System.arraycopy(extra, 0, options, 1, extra.length);
        return LINKER.downcallHandle(symbol(name), descriptor, options);
    }

    /** An errno-capturing handle of a non-variadic function: its result layout, then its arguments. */
    private static MethodHandle errnoCall(String name, MemoryLayout result, MemoryLayout... arguments) {
        return errnoCall(name, FunctionDescriptor.of(result, arguments));
    }

    private static MethodHandle plainCall(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(symbol(name), descriptor);
    }

    private static MemorySegment symbol(String name) {
        return LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
    }
}
