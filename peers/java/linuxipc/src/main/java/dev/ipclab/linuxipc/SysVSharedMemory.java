package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;

/**
 * A System V shared memory segment ({@code shmget}, {@code shmat}, {@code shmdt},
 * {@code shmctl IPC_RMID}). After {@link #attach} the memory is a {@link MemorySegment} of the
 * segment's size, so every access is bounds-checked; a read-only attachment rejects writes with
 * an exception instead of a crash. Close detaches; {@link #remove()} marks it for removal.
 */
public final class SysVSharedMemory extends SysVObject implements AutoCloseable {
    private final long size;
    private MemorySegment memory;
    /** The attachment's address, 0 when detached. */
    private long mapping;

    private SysVSharedMemory(int key, int id, long size) {
        super(key, id);
        this.size = size;
    }

    /**
     * Creates a segment exclusively ({@code IPC_CREAT | IPC_EXCL}); its bytes start as zeros.
     *
     * @param key the System V key
     * @param size the size in bytes
     * @param mode permission bits, e.g. {@code 0600}
     * @return the segment, not yet attached
     * @throws LinuxIpcException e.g. {@code EEXIST}
     */
    public static SysVSharedMemory create(int key, long size, int mode) throws LinuxIpcException {
        return get(key, size, Libc.IPC_CREAT | Libc.IPC_EXCL | (mode & 0777));
    }

    /**
     * Opens an existing segment; its size is read with {@code IPC_STAT}.
     *
     * @param key the System V key
     * @return the segment, not yet attached
     * @throws LinuxIpcException {@code ENOENT} if there is none
     */
    public static SysVSharedMemory open(int key) throws LinuxIpcException {
        return get(key, 0, 0);
    }

    /**
     * Calls {@code shmget(key, size, flags)} as given.
     *
     * @param key the System V key
     * @param size the size (0 to open an existing one)
     * @param flags {@code IPC_CREAT}, {@code IPC_EXCL} and permission bits
     * @return the segment, not yet attached
     * @throws LinuxIpcException as shmget reports
     */
    public static SysVSharedMemory get(int key, long size, int flags) throws LinuxIpcException {
        int id = (int) Native.check(Native.BINDING.shmget(key, size, flags), "shmget");
        return new SysVSharedMemory(key, id, Native.check(Native.BINDING.shmSegmentSize(id),
                "shmctl(IPC_STAT)"));
    }

    /**
     * The segment's size in bytes.
     *
     * @return the size
     */
    public long size() {
        return size;
    }

    /**
     * Attaches the segment ({@code shmat}); a second call returns the same memory.
     *
     * @param readOnly attach with {@code SHM_RDONLY}; the returned segment is then read-only
     * @return the memory, exactly {@link #size()} bytes
     * @throws LinuxIpcException e.g. {@code EACCES}, {@code EIDRM}
     */
    public synchronized MemorySegment attach(boolean readOnly) throws LinuxIpcException {
        if (memory != null) {
            return memory;
        }
        long at = Native.check(Native.BINDING.shmat(id, readOnly ? Libc.SHM_RDONLY : 0), "shmat");
        mapping = at;
        MemorySegment m = MemorySegment.ofAddress(at).reinterpret(size);
        memory = readOnly ? m.asReadOnly() : m;
        return memory;
    }

    /**
     * The attached memory.
     *
     * @return the segment
     * @throws IllegalStateException if not attached
     */
    public synchronized MemorySegment memory() {
        if (memory == null) {
            throw new IllegalStateException("not attached");
        }
        return memory;
    }

    /**
     * Copies bytes into the segment, bounds-checked.
     *
     * @param offset where in the segment
     * @param src the bytes
     * @param srcOffset first byte of src
     * @param length how many
     * @throws IndexOutOfBoundsException outside the segment or the array
     * @throws UnsupportedOperationException if attached read-only
     */
    public void write(long offset, byte[] src, int srcOffset, int length) {
        Bounds.checkArray(src, srcOffset, length);
        Bounds.check(offset, length, size);
        MemorySegment target = memory();
        if (target.isReadOnly()) {
            throw new UnsupportedOperationException("attached read-only");
        }
        MemorySegment.copy(src, srcOffset, target, JAVA_BYTE, offset, length);
    }

    /**
     * Copies bytes out of the segment, bounds-checked.
     *
     * @param offset where in the segment
     * @param dst where to
     * @param dstOffset first byte of dst
     * @param length how many
     * @throws IndexOutOfBoundsException outside the segment or the array
     */
    public void read(long offset, byte[] dst, int dstOffset, int length) {
        Bounds.checkArray(dst, dstOffset, length);
        Bounds.check(offset, length, size);
        MemorySegment.copy(memory(), JAVA_BYTE, offset, dst, dstOffset, length);
    }

    /**
     * Detaches ({@code shmdt}); the segment lives on until removed. Idempotent.
     *
     * @throws LinuxIpcException as shmdt reports
     */
    public synchronized void detach() throws LinuxIpcException {
        if (mapping == 0) {
            return;
        }
        long at = mapping;
        mapping = 0;
        memory = null;
        Native.check(Native.BINDING.shmdt(at), "shmdt");
    }

    /**
     * Marks the segment for removal ({@code shmctl IPC_RMID}); it goes once the last process
     * detaches, and its key is free at once.
     *
     * @throws LinuxIpcException e.g. {@code EINVAL} if already gone
     */
    public void remove() throws LinuxIpcException {
        Native.check(Native.BINDING.shmctlRemove(id), "shmctl(IPC_RMID)");
    }

    /**
     * Detaches (does not remove).
     *
     * @throws LinuxIpcException as shmdt reports
     */
    @Override
    public void close() throws LinuxIpcException {
        detach();
    }

    @Override
    String details() {
        return ", size=" + size;
    }
}
