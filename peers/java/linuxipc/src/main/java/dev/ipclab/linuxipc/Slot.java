package dev.ipclab.linuxipc;

import java.lang.foreign.MemorySegment;

/**
 * One slot of a hand-off in System V shared memory: at {@code offset} a u64 length and up to
 * {@code capacity} bytes; semaphore {@code emptySem} says it may be written, {@code fullSem}
 * that it holds a message.
 */
record Slot(MemorySegment memory, SysVSemaphoreSet semaphores, long offset, int capacity,
        int emptySem, int fullSem) {
    Slot {
        Bounds.check(offset, 8L + capacity, memory.byteSize());
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive");
        }
    }
}
