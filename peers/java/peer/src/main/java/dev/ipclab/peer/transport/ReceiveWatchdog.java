package dev.ipclab.peer.transport;

import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Enforces --io-timeout on blocking receives without slowing them down. A blocking
 * DatagramChannel has no receive timeout, and a Selector would add two system calls to every
 * round trip; instead the receiving thread only bumps a counter (a plain store on x86) around each
 * receive, and this watchdog thread, waking a few times per timeout, closes the channel when one
 * receive has been in progress for at least the timeout. The blocked receive then fails with
 * AsynchronousCloseException and {@link #fired()} tells it why.
 *
 * <p>A timeout is reported at least timeout and at most timeout + 2 * min(timeout / 8, 1 s)
 * after the receive began.
 */
final class ReceiveWatchdog implements AutoCloseable {
    private static final long MIN_PERIOD = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long MAX_PERIOD = TimeUnit.SECONDS.toNanos(1);

    /** Odd while a receive is in progress; each enter and exit adds one. */
    private final AtomicLong state = new AtomicLong();
    private final long timeoutNanos;
    private final long periodNanos;
    private final Closeable target;
    private final Thread thread;
    private volatile boolean fired;
    private volatile boolean closed;

    ReceiveWatchdog(long timeoutNanos, Closeable target) {
        this.timeoutNanos = timeoutNanos;
        this.periodNanos = Math.clamp(timeoutNanos / 8, MIN_PERIOD, MAX_PERIOD);
        this.target = target;
        this.thread = Thread.ofPlatform().daemon().name("ipclab-receive-watchdog").unstarted(this::watch);
        thread.start();
    }

    void enter() {
        // Only the receiving thread writes: a release store is enough and costs no fence.
        state.lazySet(state.get() + 1);
    }

    void exit() {
        state.lazySet(state.get() + 1);
    }

    boolean fired() {
        return fired;
    }

    long timeoutNanos() {
        return timeoutNanos;
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }

    private void watch() {
        long observed = -1;
        long since = 0;
        while (!closed) {
            long now = System.nanoTime();
            long current = state.get();
            if ((current & 1) == 0) {
                observed = -1;
            } else if (current != observed) {
                observed = current;
                since = now;
            } else if (now - since >= timeoutNanos) {
                expire();
                return;
            }
            try {
                TimeUnit.NANOSECONDS.sleep(periodNanos);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void expire() {
        fired = true;
        try {
            target.close();
        } catch (IOException ignored) {
            // The receiver fails either way; nothing else can be done about a failing close.
        }
    }
}
