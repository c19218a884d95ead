package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;

/**
 * An output stream over a one-slot hand-off in System V shared memory: the slot at
 * {@code slotOffset} holds a u64 length and up to {@code capacity} bytes; semaphore
 * {@code emptySem} (initially 1) says the slot may be written, {@code fullSem} (initially 0)
 * that it holds a message. A write is cut into messages of at most capacity bytes, each sent as
 * P(EMPTY), copy, V(FULL). {@link #close()} sends an empty message (end of stream for
 * {@link SharedMemoryInputStream}). Not thread-safe; closing removes nothing.
 */
public final class SharedMemoryOutputStream extends OutputStream {
    private final Slot slot;
    private final byte[] one = new byte[1];
    private boolean closed;

    /**
     * A stream writing into one slot.
     *
     * @param memory the attached segment ({@link SysVSharedMemory#attach})
     * @param semaphores the set holding the slot's EMPTY and FULL semaphores
     * @param slotOffset where the slot's u64 length is; the bytes follow it
     * @param capacity the slot's byte capacity
     * @param emptySem index of the EMPTY semaphore (initial value 1)
     * @param fullSem index of the FULL semaphore (initial value 0)
     */
    public SharedMemoryOutputStream(MemorySegment memory, SysVSemaphoreSet semaphores,
            long slotOffset, int capacity, int emptySem, int fullSem) {
        this.slot = new Slot(memory, semaphores, slotOffset, capacity, emptySem, fullSem);
    }

    /**
     * Sends one byte as a message of its own (wrap the stream in a BufferedOutputStream).
     *
     * @param b the byte
     * @throws IOException if closed or a semaphore operation fails
     */
    @Override
    public void write(int b) throws IOException {
        one[0] = (byte) b;
        write(one, 0, 1);
    }

    /**
     * Sends the bytes as ceil(len / capacity) messages; nothing for len 0.
     *
     * @param b the bytes
     * @param off first byte
     * @param len how many
     * @throws IOException if closed or a semaphore operation fails
     */
    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (closed) {
            throw new IOException("stream closed");
        }
        Bounds.checkArray(b, off, len);
        while (len > 0) {
            int n = Math.min(len, slot.capacity());
            send(b, off, n);
            off += n;
            len -= n;
        }
    }

    private void send(byte[] b, int off, int n) throws LinuxIpcException {
        slot.semaphores().acquire(slot.emptySem());
        slot.memory().set(JAVA_LONG_UNALIGNED, slot.offset(), n);
        MemorySegment.copy(b, off, slot.memory(), JAVA_BYTE, slot.offset() + 8, n);
        slot.semaphores().release(slot.fullSem());
    }

    /**
     * Sends the end-of-stream marker (an empty message) once.
     *
     * @throws IOException if a semaphore operation fails
     */
    @Override
    public void close() throws IOException {
        if (!closed) {
            closed = true;
            send(one, 0, 0);
        }
    }
}
