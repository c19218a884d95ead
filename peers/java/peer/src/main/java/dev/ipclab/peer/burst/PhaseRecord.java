package dev.ipclab.peer.burst;

/**
 * One connection of a burst server (PROTOCOL.md 11.4): its phases in nanoseconds of
 * {@link System#nanoTime()} (CLOCK_MONOTONIC), {@link #NONE} where the model has no such phase.
 * The acceptor writes accept, loop and spawn; the task that serves the connection writes
 * start_delay, transfer, total and error, then {@link #done}. Fields are volatile: the phases
 * file is written by whichever thread ends the server.
 */
final class PhaseRecord {
    static final long NONE = -1;

    final long acceptStart;
    final long acceptedAt;
    volatile int worker;
    volatile long loop = NONE;
    volatile long spawn = NONE;
    volatile long startDelay = NONE;
    volatile long transfer = NONE;
    volatile long total = NONE;
    /** Null when the response was sent and the connection closed; else a kind of 11.4. */
    volatile String error;
    volatile boolean done;

    PhaseRecord(long acceptStart, long acceptedAt, int worker) {
        this.acceptStart = acceptStart;
        this.acceptedAt = acceptedAt;
        this.worker = worker;
    }

    long accept() {
        return acceptedAt - acceptStart;
    }

    /** The task's end: total from the accept's return to now (after the close). */
    void finish(String failure) {
        error = failure;
        total = System.nanoTime() - acceptedAt;
        done = true;
    }
}
