package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A System V semaphore set ({@code semget}, {@code semop}, {@code semtimedop}, {@code semctl}).
 * Operations pass one {@code struct sembuf} through the binding ({@link LinuxIpc}), which
 * allocates nothing, so {@link #op} and {@link #op(int, int, long)} allocate nothing. The handle is thread-safe.
 */
public final class SysVSemaphoreSet extends SysVObject {
    private static final int GETNCNT = 14;
    private static final int GETVAL = 12;
    private static final int GETALL = 13;
    private static final int SETALL = 17;

    private final int size;

    private SysVSemaphoreSet(int key, int id, int size) {
        super(key, id);
        this.size = size;
    }

    /**
     * Creates a new set exclusively ({@code IPC_CREAT | IPC_EXCL}); all values start at 0.
     *
     * @param key the System V key
     * @param count number of semaphores, at least 1
     * @param mode permission bits, e.g. {@code 0600}
     * @return the set
     * @throws LinuxIpcException e.g. {@code EEXIST}
     */
    public static SysVSemaphoreSet create(int key, int count, int mode) throws LinuxIpcException {
        return get(key, count, Libc.IPC_CREAT | Libc.IPC_EXCL | (mode & 0777));
    }

    /**
     * Opens an existing set.
     *
     * @param key the System V key
     * @param count the number of semaphores the caller will use (0 = any)
     * @return the set
     * @throws LinuxIpcException {@code ENOENT} if there is none
     */
    public static SysVSemaphoreSet open(int key, int count) throws LinuxIpcException {
        return get(key, count, 0);
    }

    /**
     * Calls {@code semget(key, count, flags)} as given.
     *
     * @param key the System V key
     * @param count number of semaphores
     * @param flags {@code IPC_CREAT}, {@code IPC_EXCL} and permission bits
     * @return the set
     * @throws LinuxIpcException as semget reports
     */
    public static SysVSemaphoreSet get(int key, int count, int flags) throws LinuxIpcException {
        int id = Native.BINDING.semget(key, count, flags);
        return new SysVSemaphoreSet(key, (int) Native.check(id, "semget"), count);
    }

    /**
     * The number of semaphores given when the set was made or opened.
     *
     * @return the count (0 if opened with "any")
     */
    public int size() {
        return size;
    }

    /**
     * One {@code semop} on one semaphore with {@code sem_flg} 0: delta &lt; 0 waits until it can
     * subtract (P), delta &gt; 0 adds (V), 0 waits for zero. Restarted after {@code EINTR}.
     *
     * @param sem the semaphore's index
     * @param delta the change
     * @throws LinuxIpcException e.g. {@code EIDRM} when the set is removed while waiting
     */
    public void op(int sem, int delta) throws LinuxIpcException {
        int rc;
        do {
            rc = Native.BINDING.semop(id, sem, delta);
        } while (Native.again(rc, "semop"));
    }

    /**
     * One {@code semtimedop} on one semaphore: like {@link #op(int, int)}, but gives up after the
     * timeout. After {@code EINTR} it restarts with the full timeout again.
     *
     * @param sem the semaphore's index
     * @param delta the change
     * @param timeoutNanos the longest wait, in nanoseconds
     * @return true if done, false if the timeout expired
     * @throws LinuxIpcException e.g. {@code EIDRM}
     */
    public boolean op(int sem, int delta, long timeoutNanos) throws LinuxIpcException {
        int rc;
        do {
            rc = Native.BINDING.semtimedop(id, sem, delta, timeoutNanos);
        } while (Native.again(rc, "semtimedop", Libc.EAGAIN));
        return rc == 0;
    }

    /**
     * P: waits until the semaphore is positive, then decrements it.
     *
     * @param sem the semaphore's index
     * @throws LinuxIpcException e.g. {@code EIDRM}
     */
    public void acquire(int sem) throws LinuxIpcException {
        op(sem, -1);
    }

    /**
     * V: increments the semaphore.
     *
     * @param sem the semaphore's index
     * @throws LinuxIpcException e.g. {@code EIDRM}
     */
    public void release(int sem) throws LinuxIpcException {
        op(sem, 1);
    }

    /**
     * {@code semctl GETVAL}.
     *
     * @param sem the semaphore's index
     * @return its value
     * @throws LinuxIpcException as semctl reports
     */
    public int getValue(int sem) throws LinuxIpcException {
        return ctl(sem, GETVAL, "semctl(GETVAL)");
    }

    /**
     * {@code semctl GETNCNT}: how many processes wait for the semaphore to increase.
     *
     * @param sem the semaphore's index
     * @return the count
     * @throws LinuxIpcException as semctl reports
     */
    public int waitingCount(int sem) throws LinuxIpcException {
        return ctl(sem, GETNCNT, "semctl(GETNCNT)");
    }

    /**
     * {@code semctl SETVAL}.
     *
     * @param sem the semaphore's index
     * @param value the new value, 0 to 32767
     * @throws LinuxIpcException e.g. {@code ERANGE}
     */
    public void setValue(int sem, int value) throws LinuxIpcException {
        Native.check(Native.BINDING.semctlSetValue(id, sem, value), "semctl(SETVAL)");
    }

    /**
     * {@code semctl SETALL}: sets every semaphore at once.
     *
     * @param values one value per semaphore of the set
     * @throws LinuxIpcException as semctl reports
     */
    public void setAll(int... values) throws LinuxIpcException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment array = arena.allocate(JAVA_SHORT, values.length);
            for (int i = 0; i < values.length; i++) {
                array.setAtIndex(JAVA_SHORT, i, (short) values[i]);
            }
            Native.check(Native.BINDING.semctlArray(id, SETALL, array), "semctl(SETALL)");
        }
    }

    /**
     * {@code semctl GETALL}.
     *
     * @param count the number of semaphores in the set
     * @return their values
     * @throws LinuxIpcException as semctl reports
     */
    public int[] getAll(int count) throws LinuxIpcException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment array = arena.allocate(JAVA_SHORT, count);
            Native.check(Native.BINDING.semctlArray(id, GETALL, array), "semctl(GETALL)");
            int[] values = new int[count];
            for (int i = 0; i < count; i++) {
                values[i] = Short.toUnsignedInt(array.getAtIndex(JAVA_SHORT, i));
            }
            return values;
        }
    }

    /**
     * Removes the set ({@code semctl IPC_RMID}); waiters get {@code EIDRM}.
     *
     * @throws LinuxIpcException e.g. {@code EINVAL} if it is already gone
     */
    public void remove() throws LinuxIpcException {
        ctl(0, Libc.IPC_RMID, "semctl(IPC_RMID)");
    }

    private int ctl(int sem, int cmd, String call) throws LinuxIpcException {
        return (int) Native.check(Native.BINDING.semctl(id, sem, cmd), call);
    }
}
