package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The process's own CPU time and context switches, {@code getrusage(RUSAGE_SELF)}: every thread
 * of the process (JIT and GC included), which the JDK offers no call for. A figure is taken at a
 * phase boundary and subtracted from a later one ({@link #since}).
 *
 * @param userNanos {@code ru_utime} in nanoseconds (the kernel counts microseconds)
 * @param systemNanos {@code ru_stime} in nanoseconds
 * @param voluntary {@code ru_nvcsw}: switches because the process waited
 * @param involuntary {@code ru_nivcsw}: switches because the scheduler preempted it
 */
public record ResourceUsage(long userNanos, long systemNanos, long voluntary, long involuntary) {
    private static final int RUSAGE_SELF = 0;
    /** struct rusage on x86_64: two struct timeval (16 bytes each), then 14 longs. */
    static final long SIZE = 144;
    static final long UTIME = 0;
    static final long STIME = 16;
    static final long NVCSW = 128;
    static final long NIVCSW = 136;

    private static final ThreadLocal<MemorySegment> BUFFER =
            ThreadLocal.withInitial(() -> Arena.global().allocate(SIZE, 8));

    /**
     * The process's figures now; the only allocation is the returned record.
     *
     * @throws LinuxIpcException if the kernel refuses (it does not for RUSAGE_SELF)
     */
    public static ResourceUsage self() throws LinuxIpcException {
        MemorySegment usage = BUFFER.get();
        int rc;
        try {
            rc = (int) Libc.GETRUSAGE.invokeExact(Libc.state(), RUSAGE_SELF, usage);
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
        Libc.check(rc, "getrusage");
        return of(usage);
    }

    /** Reads a struct rusage. */
    static ResourceUsage of(MemorySegment usage) {
        return new ResourceUsage(nanos(usage, UTIME), nanos(usage, STIME),
                usage.get(JAVA_LONG, NVCSW), usage.get(JAVA_LONG, NIVCSW));
    }

    /** What was spent from {@code earlier} to this figure. */
    public ResourceUsage since(ResourceUsage earlier) {
        return new ResourceUsage(userNanos - earlier.userNanos, systemNanos - earlier.systemNanos,
                voluntary - earlier.voluntary, involuntary - earlier.involuntary);
    }

    /** A struct timeval {tv_sec, tv_usec} in nanoseconds. */
    private static long nanos(MemorySegment usage, long offset) {
        return usage.get(JAVA_LONG, offset) * 1_000_000_000L + usage.get(JAVA_LONG, offset + 8) * 1000L;
    }
}
