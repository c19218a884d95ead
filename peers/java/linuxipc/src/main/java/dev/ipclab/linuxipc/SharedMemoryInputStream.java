package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * An input stream over the one-slot hand-off of {@link SharedMemoryOutputStream}: it takes a
 * message with P(FULL), serves its bytes, and gives the slot back with V(EMPTY) once they are
 * all read. An empty message is end of stream. Not thread-safe; closing removes nothing.
 */
public final class SharedMemoryInputStream extends MessageInput {
    private final Slot slot;

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
        this.slot = new Slot(memory, semaphores, slotOffset, capacity, emptySem, fullSem);
    }

    /** P(FULL), then the slot's length; an empty message gives the slot back at once. */
    @Override
    long next() throws IOException {
        slot.semaphores().acquire(slot.fullSem());
        long n = slot.memory().get(JAVA_LONG_UNALIGNED, slot.offset());
        if (n < 0 || n > slot.capacity()) {
            throw new IOException("slot holds a bad length " + n);
        }
        if (n == 0) {
            consumed();
        }
        return n;
    }

    @Override
    void copy(long offset, byte[] b, int off, int n) {
        MemorySegment.copy(slot.memory(), JAVA_BYTE, slot.offset() + 8 + offset, b, off, n);
    }

    /** V(EMPTY): the writer may fill the slot again. */
    @Override
    void consumed() throws LinuxIpcException {
        slot.semaphores().release(slot.emptySem());
    }
}
