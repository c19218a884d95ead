package dev.ipclab.peer.load;

import dev.ipclab.peer.frame.Payload;
import java.util.Arrays;

/**
 * The intended starts of PROTOCOL.md 11.5.2, as offsets in ns from T0, computed whole before T0:
 * every request k with o_k below (W + D) ms; the first {@link #warmup()} are the warm-up (the
 * offsets never decrease, so the warm-up is a prefix).
 */
public final class Schedule {
    /** The poisson gaps' splitmix64 starts at seed XOR (3 × golden ratio): stream 3. */
    private static final int POISSON_STREAM = 3;
    private static final double TWO_TO_MINUS_53 = 0x1.0p-53;
    private static final long NANOS_PER_MS = 1_000_000L;

    private final long[] offsets;
    private final int warmup;

    private Schedule(long[] offsets, int warmup) {
        this.offsets = offsets;
        this.warmup = warmup;
    }

    /**
     * @param limit the most requests the client can hold
     * @throws IllegalArgumentException the schedule has more than {@code limit} requests
     */
    public static Schedule of(long seed, LoadShape shape, long limit) {
        long endNs = (shape.warmupMs() + shape.durationMs()) * NANOS_PER_MS;
        long[] offsets = shape.poisson() ? poisson(seed, shape.rate(), endNs, limit)
                : fixed(shape.rate(), shape.warmupMs() + shape.durationMs(), limit);
        long warmNs = shape.warmupMs() * NANOS_PER_MS;
        int warmup = 0;
        while (warmup < offsets.length && offsets[warmup] < warmNs) {
            warmup++;
        }
        return new Schedule(offsets, warmup);
    }

    /**
     * o_k = ⌊k × 10⁹ / R⌋; o_k < L ms × 10⁶ exactly when k × 1000 < L × R, so the count is
     * ⌈L × R / 1000⌉ (at most 7.2 × 10¹³: no overflow), and k × 10⁹ fits for every k held.
     */
    static long[] fixed(long rate, long totalMs, long limit) {
        long count = Math.ceilDiv(totalMs * rate, 1000L);
        checkLimit(count, limit);
        long[] offsets = new long[(int) count];
        for (int k = 0; k < offsets.length; k++) {
            offsets[k] = k * 1_000_000_000L / rate;
        }
        return offsets;
    }

    /** The poisson offsets until one reaches the end (which is not held). */
    static long[] poisson(long seed, long rate, long endNs, long limit) {
        Arrivals arrivals = new Arrivals(seed, rate);
        long[] offsets = new long[(int) Math.min(limit, 1024)];
        int count = 0;
        for (long offset = arrivals.next(); offset < endNs; offset = arrivals.next()) {
            if (count == offsets.length) {
                checkLimit(count + 1L, limit);
                offsets = Arrays.copyOf(offsets, (int) Math.min(limit, 2L * count));
            }
            offsets[count++] = offset;
        }
        return Arrays.copyOf(offsets, count);
    }

    /** o_0 = 0, then s_k = s_{k−1} − ln(u_k) × 10⁹ / R in doubles and o_k = ⌊s_k⌋. */
    static final class Arrivals {
        private final Payload.SplitMix gaps;
        private final long rate;
        private double sum;
        private boolean started;

        Arrivals(long seed, long rate) {
            this.gaps = new Payload.SplitMix(seed, POISSON_STREAM);
            this.rate = rate;
        }

        long next() {
            if (started) {
                double u = ((gaps.next() >>> 11) + 1) * TWO_TO_MINUS_53;
                sum += -Math.log(u) * 1e9 / rate;
            }
            started = true;
            return (long) Math.floor(sum);
        }
    }

    private static void checkLimit(long count, long limit) {
        if (count > limit) {
            throw new IllegalArgumentException("the schedule holds more than " + limit
                    + " requests, the most this client can record");
        }
    }

    /** All requests, warm-up included. */
    public int size() {
        return offsets.length;
    }

    public int warmup() {
        return warmup;
    }

    public int measured() {
        return offsets.length - warmup;
    }

    /** Request k's intended start, ns after T0. */
    public long offset(int k) {
        return offsets[k];
    }
}
