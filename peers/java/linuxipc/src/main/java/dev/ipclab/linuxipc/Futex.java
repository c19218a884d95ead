package dev.ipclab.linuxipc;


import java.lang.foreign.MemorySegment;

/**
 * Linux futexes on a 32-bit word of native memory, through {@code syscall(SYS_futex, ...)}
 * (x86_64: 202). The operations are the <em>shared</em> ones ({@code FUTEX_WAIT} = 0,
 * {@code FUTEX_WAKE} = 1, without {@code FUTEX_PRIVATE_FLAG}), so the word may live in memory
 * shared between processes, e.g. a {@link PosixSharedMemory} mapping.
 *
 * <p>Neither call allocates: the word's address is passed as a number and the timeout goes into
 * the calling thread's scratch area. The word must be 4-byte aligned and inside a native segment.
 */
public final class Futex {
    /** {@code SYS_futex} on x86_64. */
    public static final long SYS_FUTEX = 202;
    /** {@code FUTEX_WAIT} (shared). */
    public static final int FUTEX_WAIT = 0;
    /** {@code FUTEX_WAKE} (shared). */
    public static final int FUTEX_WAKE = 1;

    private Futex() {}

    /**
     * Sleeps while the word still holds {@code expected}, until woken, the timeout passes or a
     * signal interrupts; the kernel checks the value and goes to sleep atomically.
     *
     * @param segment native memory holding the word
     * @param offset the word's offset in the segment, a multiple of 4 from an aligned base
     * @param expected the value the caller last saw
     * @param timeoutNanos the longest sleep (relative, CLOCK_MONOTONIC); negative for none
     * @return {@code false} if the timeout passed, {@code true} otherwise (woken, the value had
     *     already changed, or interrupted): the caller re-reads the word and decides
     * @throws LinuxIpcException on any other error (e.g. {@code EFAULT}, {@code EINVAL})
     * @throws IllegalArgumentException if the word is not a native, aligned int of the segment
     */
    public static boolean await(MemorySegment segment, long offset, int expected, long timeoutNanos)
            throws LinuxIpcException {
        long address = address(segment, offset);
        long rc = Native.BINDING.futexWait(address, expected, timeoutNanos);
        if (rc == 0) {
            return true;
        }
        int errno = (int) -rc;
        return switch (errno) {
            case Libc.ETIMEDOUT -> false;
            case Libc.EAGAIN, Libc.EINTR -> true;
            default -> throw new LinuxIpcException("futex(FUTEX_WAIT)", errno);
        };
    }

    /**
     * Wakes up to {@code count} threads (of any process) sleeping on the word.
     *
     * @param segment native memory holding the word
     * @param offset the word's offset in the segment
     * @param count how many to wake at most, e.g. {@link Integer#MAX_VALUE}
     * @return how many were woken
     * @throws LinuxIpcException if the kernel refuses
     * @throws IllegalArgumentException if the word is not a native, aligned int of the segment
     */
    public static int wake(MemorySegment segment, long offset, int count) throws LinuxIpcException {
        long address = address(segment, offset);
        return (int) Native.check(Native.BINDING.futexWake(address, count), "futex(FUTEX_WAKE)");
    }

    private static long address(MemorySegment segment, long offset) {
        if (!segment.isNative()) {
            throw new IllegalArgumentException("a futex word must be in native memory");
        }
        if (offset < 0 || offset > segment.byteSize() - 4) {
            throw new IllegalArgumentException("offset " + offset + " outside the segment");
        }
        long address = segment.address() + offset;
        if ((address & 3) != 0) {
            throw new IllegalArgumentException("a futex word must be 4-byte aligned");
        }
        return address;
    }
}
