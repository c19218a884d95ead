package dev.ipclab.linuxipc;

/**
 * What every System V IPC handle has: the key it was opened with and the kernel's identifier
 * ({@code msqid}, {@code semid}, {@code shmid}).
 */
public abstract sealed class SysVObject permits SysVMessageQueue, SysVSemaphoreSet, SysVSharedMemory {
    final int key;
    final int id;

    SysVObject(int key, int id) {
        this.key = key;
        this.id = id;
    }

    /**
     * The key the object was opened with.
     *
     * @return the key
     */
    public final int key() {
        return key;
    }

    /**
     * The kernel's identifier.
     *
     * @return the msqid, semid or shmid
     */
    public final int id() {
        return id;
    }

    /** What a subclass adds to {@link #toString()} after the id (", size=..."), or "". */
    String details() {
        return "";
    }

    @Override
    public String toString() {
        return String.format("%s[key=0x%08x, id=%d%s]", getClass().getSimpleName(), key, id,
                details());
    }
}
