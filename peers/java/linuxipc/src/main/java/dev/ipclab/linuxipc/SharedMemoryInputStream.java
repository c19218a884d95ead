package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;

/**
 * An input stream over the one-slot hand-off of {@link SharedMemoryOutputStream}: it takes a
 * message with P(FULL), serves its bytes, and gives the slot back with V(EMPTY) once they are
 * all read. An empty message is end of stream. Not thread-safe; closing removes nothing.
 */
public final class SharedMemoryInputStream extends InputStream {
    private final MemorySegment memory;
    private final SysVSemaphoreSet semaphores;
    private final long slotOffset;
    private final int capacity;
    private final int emptySem;
    private final int fullSem;
    private long position;
    private long limit;
    private boolean holding;
    private boolean eof;

    /**
     * A stream reading from one slot.
     *
     * @param memory the attached segment
     * @param semaphores the set holding the slot's EMPTY and FULL semaphores
     * @param slotOffset where the slot's u64 length is
     * @param capacity the slot's byte capacity
     * @param emptySem index of the EMPTY semaphore
     * @param fullSem index of the FULL semaphore
     */
    public SharedMemoryInputStream(MemorySegment memory, SysVSemaphoreSet semaphores,
            long slotOffset, int capacity, int emptySem, int fullSem) {
        Bounds.check(slotOffset, 8L + capacity, memory.byteSize());
        this.memory = memory;
        this.semaphores = semaphores;
        this.slotOffset = slotOffset;
        this.capacity = capacity;
        this.emptySem = emptySem;
        this.fullSem = fullSem;
    }

    /**
     * Reads one byte.
     *
     * @return the byte, or -1 at end of stream
     * @throws IOException if a semaphore operation fails or the slot holds a bad length
     */
    @Override
    public int read() throws IOException {
        if (!fill()) {
            return -1;
        }
        int b = Byte.toUnsignedInt(memory.get(JAVA_BYTE, slotOffset + 8 + position++));
        release();
        return b;
    }

    /**
     * Reads up to len bytes of the current message.
     *
     * @param b where to
     * @param off first byte
     * @param len most bytes
     * @return bytes read, or -1 at end of stream
     * @throws IOException if a semaphore operation fails or the slot holds a bad length
     */
    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Bounds.checkArray(b, off, len);
        if (len == 0) {
            return 0;
        }
        if (!fill()) {
            return -1;
        }
        int n = (int) Math.min(len, limit - position);
        MemorySegment.copy(memory, JAVA_BYTE, slotOffset + 8 + position, b, off, n);
        position += n;
        release();
        return n;
    }

    /**
     * Bytes left of the current message.
     *
     * @return that count
     */
    @Override
    public int available() {
        return (int) (limit - position);
    }

    private boolean fill() throws IOException {
        if (eof) {
            return false;
        }
        if (holding) {
            return true;
        }
        semaphores.acquire(fullSem);
        long n = memory.get(JAVA_LONG_UNALIGNED, slotOffset);
        if (n < 0 || n > capacity) {
            throw new IOException("slot holds a bad length " + n);
        }
        position = 0;
        limit = n;
        if (n == 0) {
            eof = true;
            semaphores.release(emptySem);
            return false;
        }
        holding = true;
        return true;
    }

    private void release() throws LinuxIpcException {
        if (position == limit) {
            holding = false;
            semaphores.release(emptySem);
        }
    }
}
