package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A POSIX shared memory object ({@code shm_open}, {@code ftruncate}, {@code mmap},
 * {@code munmap}, {@code shm_unlink}), mapped shared. The mapping is a {@link MemorySegment} of
 * the object's size, so access is bounds-checked. Close unmaps and closes the descriptor; the
 * object stays until {@link #unlink(String)}.
 */
public final class PosixSharedMemory implements AutoCloseable {
    private final String name;
    private final long size;
    private final boolean readOnly;
    private MemorySegment mapping;

    private PosixSharedMemory(String name, long size, boolean readOnly, MemorySegment mapping) {
        this.name = name;
        this.size = size;
        this.readOnly = readOnly;
        this.mapping = mapping;
    }

    /**
     * Creates an object exclusively ({@code O_CREAT | O_EXCL | O_RDWR}), sizes it and maps it
     * read-write.
     *
     * @param name the name, {@code /something}
     * @param size the size in bytes, at least 1
     * @param mode permission bits, e.g. {@code 0600}
     * @return the mapped object
     * @throws LinuxIpcException e.g. {@code EEXIST}
     */
    public static PosixSharedMemory create(String name, long size, int mode) throws LinuxIpcException {
        PosixSharedMemory shm = map(name, size, Libc.O_CREAT | Libc.O_EXCL | Libc.O_RDWR, mode, true,
                false);
        return shm;
    }

    /**
     * Opens and maps an existing object.
     *
     * @param name the name
     * @param size how many bytes to map (at most the object's size)
     * @param readOnly open {@code O_RDONLY} and map {@code PROT_READ} only
     * @return the mapped object
     * @throws LinuxIpcException {@code ENOENT} if there is none, {@code EACCES} if not allowed
     */
    public static PosixSharedMemory open(String name, long size, boolean readOnly)
            throws LinuxIpcException {
        return map(name, size, readOnly ? Libc.O_RDONLY : Libc.O_RDWR, 0, false, readOnly);
    }

    /**
     * Opens the object read-only but asks for a writable shared mapping, which the kernel always
     * refuses with {@code EACCES} (even for root); a way to see the permission error.
     *
     * @param name the name
     * @param size how many bytes to map
     * @return never
     * @throws LinuxIpcException always, {@code EACCES} from mmap (or shm_open's error)
     */
    public static PosixSharedMemory openReadOnlyMapWritable(String name, long size)
            throws LinuxIpcException {
        return map(name, size, Libc.O_RDONLY, 0, false, false);
    }

    private static PosixSharedMemory map(String name, long size, int oflag, int mode, boolean create,
            boolean readOnly) throws LinuxIpcException {
        if (size <= 0) {
            throw new IllegalArgumentException("size must be positive, got " + size);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cname = arena.allocateFrom(name);
            int fd = (int) Libc.check((int) Libc.SHM_OPEN.invokeExact(Libc.state(), cname, oflag,
                    mode & 0777), "shm_open");
            try {
                if (create) {
                    int rc = (int) Libc.FTRUNCATE.invokeExact(Libc.state(), fd, size);
                    if (rc != 0) {
                        LinuxIpcException e = Libc.failure("ftruncate");
                        int ignored = (int) Libc.SHM_UNLINK.invokeExact(Libc.state(), cname);
                        throw e;
                    }
                }
                int prot = readOnly ? Libc.PROT_READ : Libc.PROT_READ | Libc.PROT_WRITE;
                MemorySegment at = (MemorySegment) Libc.MMAP.invokeExact(Libc.state(),
                        MemorySegment.NULL, size, prot, Libc.MAP_SHARED, fd, 0L);
                if (at.address() == -1L) {
                    LinuxIpcException e = Libc.failure("mmap");
                    if (create) {
                        int ignored = (int) Libc.SHM_UNLINK.invokeExact(Libc.state(), cname);
                    }
                    throw e;
                }
                return new PosixSharedMemory(name, size, readOnly, at.reinterpret(size));
            } finally {
                // The mapping keeps the object; the descriptor is no longer needed.
                int ignored = (int) Libc.CLOSE.invokeExact(Libc.state(), fd);
            }
        } catch (Throwable t) {
            throw Libc.failure(t);
        }
    }

    /**
     * Removes the object's name ({@code shm_unlink}); mappings keep working.
     *
     * @param name the name
     * @throws LinuxIpcException {@code ENOENT} if there is none
     */
    public static void unlink(String name) throws LinuxIpcException {
        try (Arena arena = Arena.ofConfined()) {
            Libc.check((int) Libc.SHM_UNLINK.invokeExact(Libc.state(), arena.allocateFrom(name)),
                    "shm_unlink");
        } catch (Throwable t) {
            throw Libc.failure(t);
        }
    }

    /**
     * The name.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * The mapped size.
     *
     * @return bytes
     */
    public long size() {
        return size;
    }

    /**
     * The mapping (read-only if opened so).
     *
     * @return the segment
     * @throws IllegalStateException after close
     */
    public synchronized MemorySegment memory() {
        if (mapping == null) {
            throw new IllegalStateException("closed");
        }
        return readOnly ? mapping.asReadOnly() : mapping;
    }

    /**
     * Copies bytes into the mapping, bounds-checked.
     *
     * @param offset where in the mapping
     * @param src the bytes
     * @param srcOffset first byte of src
     * @param length how many
     * @throws IndexOutOfBoundsException outside the mapping or the array
     * @throws UnsupportedOperationException if mapped read-only
     */
    public void write(long offset, byte[] src, int srcOffset, int length) {
        Bounds.checkArray(src, srcOffset, length);
        Bounds.check(offset, length, size);
        if (readOnly) {
            throw new UnsupportedOperationException("mapped read-only");
        }
        MemorySegment.copy(src, srcOffset, memory(), JAVA_BYTE, offset, length);
    }

    /**
     * Copies bytes out of the mapping, bounds-checked.
     *
     * @param offset where in the mapping
     * @param dst where to
     * @param dstOffset first byte of dst
     * @param length how many
     * @throws IndexOutOfBoundsException outside the mapping or the array
     */
    public void read(long offset, byte[] dst, int dstOffset, int length) {
        Bounds.checkArray(dst, dstOffset, length);
        Bounds.check(offset, length, size);
        MemorySegment.copy(memory(), JAVA_BYTE, offset, dst, dstOffset, length);
    }

    /**
     * Unmaps ({@code munmap}). Idempotent; does not unlink.
     *
     * @throws LinuxIpcException as munmap reports
     */
    @Override
    public synchronized void close() throws LinuxIpcException {
        if (mapping == null) {
            return;
        }
        MemorySegment m = mapping;
        mapping = null;
        try {
            Libc.check((int) Libc.MUNMAP.invokeExact(Libc.state(), m, size), "munmap");
        } catch (Throwable t) {
            throw Libc.failure(t);
        }
    }

    @Override
    public String toString() {
        return "PosixSharedMemory[" + name + ", size=" + size + "]";
    }
}
