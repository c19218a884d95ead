package dev.ipclab.peer.transport;

/**
 * The numbers the message libraries' mechanisms share (ZeroMQ 4.8, NNG 4.9, Redis 4.10): how
 * many of a stream's messages may be queued, and --io-timeout as a library takes it.
 */
public final class LibraryLimits {
    /** The libraries' default queue, in messages; and a stream's budget per side, in bytes. */
    private static final long MOST = 1000;
    private static final long BUDGET = 64L << 20;

    private LibraryLimits() {}

    /**
     * The most messages of size bytes a stream may have queued: min(1000, max(1, ⌊64 MiB /
     * size⌋)), about 64 MiB a side (ZeroMQ's high-water mark HWM(S), NNG's send buffer B(S),
     * Redis's window W(S)). 1000, the libraries' default, up to 64 KiB; 1 from 64 MiB.
     */
    public static int streamWindow(long size) {
        long n = size <= 0 ? MOST : BUDGET / size;
        return (int) Math.max(1, Math.min(MOST, n));
    }

    /** A timeout in whole milliseconds, rounded up and capped, as a socket option takes it. */
    static int millis(long nanos) {
        long ms = (nanos + 999_999) / 1_000_000;
        return (int) Math.min(ms, 2_000_000_000L);
    }
}
