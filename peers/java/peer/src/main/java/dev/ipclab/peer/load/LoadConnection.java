package dev.ipclab.peer.load;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.PeerException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * One connection of a load client (PROTOCOL.md 11.5.3 steps 2-4, 11.5.4), run by a platform
 * thread of its own: requests c, c + C, c + 2C … in order, each sent at its intended start (or
 * late, once the previous response on this connection is in), then the end (END or finish).
 * Request k is prepared before the wait, so only the clock reads and the timed exchange lie
 * between {@code sent} and {@code received}; what a request is lies in {@link LoadCalls}.
 */
final class LoadConnection implements Runnable {
    private final int index;
    private final LoadCalls calls;
    private final LoadLedger ledger;
    private final CountDownLatch go;
    private final long[] t0;
    private boolean dead;

    /** @param t0 T0, written before {@code go} opens */
    LoadConnection(int index, LoadCalls calls, LoadLedger ledger, CountDownLatch go, long[] t0) {
        this.index = index;
        this.calls = calls;
        this.ledger = ledger;
        this.go = go;
        this.t0 = t0;
    }

    @Override
    public void run() {
        try (calls) {
            awaitStart();
            long start = t0[0];
            int size = ledger.schedule.size();
            long next = 0;
            for (int k = index; k < size; k += ledger.clients) {
                if (dead) {
                    ledger.outcome[k] = Outcome.NOT_SENT.code();
                } else {
                    request(k, start);
                }
                next = k + 1L;
            }
            if (!dead) {
                end(next);
            }
        }
    }

    /** Waits for T0's release; an interrupt (nobody sends one) is kept for later. */
    private void awaitStart() {
        boolean interrupted = false;
        while (true) {
            try {
                go.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void request(int k, long start) {
        calls.prepare(k);
        long target = start + ledger.schedule.offset(k);
        for (long now = System.nanoTime(); now < target; now = System.nanoTime()) {
            LockSupport.parkNanos(target - now);
        }
        long sent = System.nanoTime();
        try {
            calls.exchange(k);
        } catch (PeerException e) {
            ledger.sent[k] = sent - start;
            ledger.outcome[k] = failed(e).code();
            dead = true;
            return;
        }
        long done = System.nanoTime();
        ledger.sent[k] = sent - start;
        ledger.received[k] = done - start;
        PeerException bad = calls.check(k);
        ledger.outcome[k] = bad == null ? Outcome.OK.code() : failed(bad).code();
        // A mismatch leaves the connection usable; a protocol error does not (11.5.3-11.5.4).
        dead = bad != null && bad.kind() != ErrorKind.PAYLOAD_MISMATCH;
    }

    /**
     * A request's outcome; a protocol error or a mismatch is also the run's failure (exit with
     * its kind once the files are written), a transport failure is only a result.
     */
    private Outcome failed(PeerException e) {
        Outcome outcome = Outcome.of(e);
        if (outcome == Outcome.PROTOCOL || outcome == Outcome.PAYLOAD_MISMATCH) {
            ledger.fail(e);
        }
        return outcome;
    }

    /** END / finish; the counts are summed over the connections once all are done. */
    private void end(long next) {
        try {
            ledger.addCorrupted(calls.end(next));
        } catch (PeerException e) {
            ledger.fail(new PeerException(e.kind(), "connection " + index + ": "
                    + e.getMessage(), e));
        }
    }
}
