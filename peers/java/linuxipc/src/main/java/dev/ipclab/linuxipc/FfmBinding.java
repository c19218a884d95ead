package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The FFM binding: the downcall handles of {@link Libc}, each capturing errno into this thread's
 * preallocated state segment; small arguments (sembuf, timespec) go into this thread's scratch
 * segment, so the hot calls allocate nothing.
 */
final class FfmBinding implements NativeBinding {
    static final FfmBinding INSTANCE = new FfmBinding();

    /** shm_segsz in struct shmid_ds (x86-64 and aarch64), and the struct's size. */
    private static final long SEGSZ_OFFSET = 48;
    private static final long SHMID_DS_SIZE = 128;
    private static final long MQ_ATTR_SIZE = 64;
    private static final long SYS_FUTEX = 202;
    private static final long FUTEX_WAIT = 0;
    private static final long FUTEX_WAKE = 1;

    private FfmBinding() {}

    @Override
    public String name() {
        return "ffm";
    }

    /** rc, or -errno when the call failed (rc -1). */
    private static long result(long rc) {
        return rc < 0 ? -Libc.errno() : rc;
    }

    private static int result(int rc) {
        return rc < 0 ? -Libc.errno() : rc;
    }

    @Override
    public int msgget(int key, int flags) {
        try {
            return result((int) Libc.MSGGET.invokeExact(Libc.state(), key, flags));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int msgsnd(int id, MemorySegment message, long textLength, int flags) {
        try {
            return result((int) Libc.MSGSND.invokeExact(Libc.state(), id, message, textLength, flags));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public long msgrcv(int id, MemorySegment message, long capacity, long type, int flags) {
        try {
            return result((long) Libc.MSGRCV.invokeExact(Libc.state(), id, message, capacity, type, flags));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int msgctlRemove(int id) {
        try {
            return result((int) Libc.MSGCTL.invokeExact(Libc.state(), id, Libc.IPC_RMID, MemorySegment.NULL));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int semget(int key, int count, int flags) {
        try {
            return result((int) Libc.SEMGET.invokeExact(Libc.state(), key, count, flags));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int semop(int id, int sem, int delta) {
        try {
            return result((int) Libc.SEMOP.invokeExact(Libc.state(), id, sembuf(sem, delta), 1L));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int semtimedop(int id, int sem, int delta, long timeoutNanos) {
        MemorySegment ts = Libc.scratch().asSlice(16, Libc.TIMESPEC_SIZE);
        Libc.relative(ts, timeoutNanos);
        try {
            return result((int) Libc.SEMTIMEDOP.invokeExact(Libc.state(), id, sembuf(sem, delta), 1L, ts));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int semctl(int id, int sem, int cmd) {
        try {
            return result((int) Libc.SEMCTL.invokeExact(Libc.state(), id, sem, cmd));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int semctlSetValue(int id, int sem, int value) {
        try {
            return result((int) Libc.SEMCTL_ARG.invokeExact(Libc.state(), id, sem, 16, (long) value));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int semctlArray(int id, int cmd, MemorySegment array) {
        try {
            return result((int) Libc.SEMCTL_PTR.invokeExact(Libc.state(), id, 0, cmd, array));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int shmget(int key, long size, int flags) {
        try {
            return result((int) Libc.SHMGET.invokeExact(Libc.state(), key, size, flags));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public long shmSegmentSize(int id) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ds = arena.allocate(SHMID_DS_SIZE, 8);
            int rc = result((int) Libc.SHMCTL.invokeExact(Libc.state(), id, Libc.IPC_STAT, ds));
            return rc < 0 ? rc : ds.get(JAVA_LONG, SEGSZ_OFFSET);
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public long shmat(int id, int flags) {
        try {
            MemorySegment at = (MemorySegment) Libc.SHMAT.invokeExact(Libc.state(), id, MemorySegment.NULL, flags);
            return result(at.address());
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int shmdt(long address) {
        try {
            return result((int) Libc.SHMDT.invokeExact(Libc.state(), MemorySegment.ofAddress(address)));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int shmctlRemove(int id) {
        try {
            return result((int) Libc.SHMCTL.invokeExact(Libc.state(), id, Libc.IPC_RMID, MemorySegment.NULL));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int mqOpen(String name, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            return result((int) Libc.MQ_OPEN.invokeExact(Libc.state(), arena.allocateFrom(name), flags));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int mqCreate(String name, int flags, int mode, long maxMessages, long messageSize) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(MQ_ATTR_SIZE, 8);
            attr.set(JAVA_LONG, 8, maxMessages);
            attr.set(JAVA_LONG, 16, messageSize);
            return result((int) Libc.MQ_OPEN_CREATE.invokeExact(Libc.state(), arena.allocateFrom(name),
                    flags, mode, attr));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int mqSend(int mqd, MemorySegment src, long length, int priority) {
        try {
            return result((int) Libc.MQ_SEND.invokeExact(Libc.state(), mqd, src, length, priority));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public long mqReceive(int mqd, MemorySegment dst, long capacity) {
        try {
            return result((long) Libc.MQ_RECEIVE.invokeExact(Libc.state(), mqd, dst, capacity,
                    MemorySegment.NULL));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public long mqTimedReceive(int mqd, MemorySegment dst, long capacity, long timeoutNanos) {
        MemorySegment deadline = Libc.scratch().asSlice(16, Libc.TIMESPEC_SIZE);
        Libc.realtimeDeadline(deadline, timeoutNanos);
        try {
            return result((long) Libc.MQ_TIMEDRECEIVE.invokeExact(Libc.state(), mqd, dst, capacity,
                    MemorySegment.NULL, deadline));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int mqGetAttributes(int mqd, MemorySegment attr) {
        try {
            return result((int) Libc.MQ_GETATTR.invokeExact(Libc.state(), mqd, attr));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int mqClose(int mqd) {
        try {
            return result((int) Libc.MQ_CLOSE.invokeExact(Libc.state(), mqd));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int mqUnlink(String name) {
        try (Arena arena = Arena.ofConfined()) {
            return result((int) Libc.MQ_UNLINK.invokeExact(Libc.state(), arena.allocateFrom(name)));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public int mkfifo(String path, int mode) {
        try (Arena arena = Arena.ofConfined()) {
            return result((int) Libc.MKFIFO.invokeExact(Libc.state(), arena.allocateFrom(path), mode));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @Override
    public long futexWait(long address, int expected, long timeoutNanos) {
        long timeout = 0;
        if (timeoutNanos >= 0) {
            MemorySegment ts = Libc.scratch().asSlice(16, Libc.TIMESPEC_SIZE);
            Libc.relative(ts, timeoutNanos);
            timeout = ts.address();
        }
        return syscall(SYS_FUTEX, address, FUTEX_WAIT, expected, timeout);
    }

    @Override
    public long futexWake(long address, int count) {
        return syscall(SYS_FUTEX, address, FUTEX_WAKE, count, 0L);
    }

    private static long syscall(long number, long a, long b, long c, long d) {
        try {
            return result((long) Libc.SYSCALL6.invokeExact(Libc.state(), number, a, b, c, d, 0L, 0L));
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    /** One struct sembuf {sem, delta, 0} in this thread's scratch area. */
    private static MemorySegment sembuf(int sem, int delta) {
        MemorySegment sops = Libc.scratch();
        sops.set(JAVA_SHORT, 0, (short) sem);
        sops.set(JAVA_SHORT, 2, (short) delta);
        sops.set(JAVA_SHORT, 4, (short) 0);
        return sops;
    }
}
