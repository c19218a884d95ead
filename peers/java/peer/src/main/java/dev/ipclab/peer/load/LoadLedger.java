package dev.ipclab.peer.load;

import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.pattern.Samples;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Every request's times and outcome, in arrays made before T0 (each connection writes only its
 * own requests' slots), and what is made of them after the run: the records file, the samples
 * and the result's figures (PROTOCOL.md 11.5.3). Times are ns after T0.
 */
final class LoadLedger {
    static final String HEADER = "request,connection,measured,intended_ns,sent_ns,received_ns,error\n";
    /** No such time: not sent, or no whole RESPONSE. */
    static final long NONE = Long.MIN_VALUE;

    final Schedule schedule;
    final int clients;
    final long[] sent;
    final long[] received;
    final byte[] outcome;
    /** The first response that failed validation, or END_ACK's count: the run's exit kind. */
    private final AtomicReference<PeerException> failure = new AtomicReference<>();
    /** The connections' END_ACK or finish counts, summed (11.5.4: finish counts server-wide). */
    private final AtomicLong corrupted = new AtomicLong();

    LoadLedger(Schedule schedule, int clients) {
        this.schedule = schedule;
        this.clients = clients;
        this.sent = new long[schedule.size()];
        this.received = new long[schedule.size()];
        this.outcome = new byte[schedule.size()];
        Arrays.fill(sent, NONE);
        Arrays.fill(received, NONE);
    }

    /** Keeps the first failure only: it is the one the client exits with. */
    void fail(PeerException e) {
        failure.compareAndSet(null, e);
    }

    PeerException failure() {
        return failure.get();
    }

    void addCorrupted(long count) {
        corrupted.addAndGet(count);
    }

    /** After every connection's end: a non-zero sum is the run's payload mismatch. */
    void checkCorrupted() {
        long count = corrupted.get();
        if (count != 0) {
            fail(PeerException.mismatch("payload mismatch: server received "
                    + Long.toUnsignedString(count) + " corrupted request payloads"));
        }
    }

    private boolean measured(int k) {
        return k >= schedule.warmup();
    }

    /** The records file: one row per request of the schedule, warm-up included, in order. */
    void writeRecords(Path path) throws IOException {
        Path tmp = path.resolveSibling(path.getFileName() + ".tmp" + ProcessHandle.current().pid());
        try {
            writeRows(tmp);
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private void writeRows(Path tmp) throws IOException {
        try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.US_ASCII)) {
            out.write(HEADER);
            StringBuilder row = new StringBuilder(96);
            for (int k = 0; k < schedule.size(); k++) {
                row.setLength(0);
                row.append(k).append(',').append(k % clients).append(',')
                        .append(measured(k) ? 1 : 0).append(',').append(schedule.offset(k))
                        .append(',');
                time(row, sent[k]).append(',');
                time(row, received[k]).append(',').append(Outcome.of(outcome[k]).label())
                        .append('\n');
                out.append(row);
            }
        }
    }

    private static StringBuilder time(StringBuilder row, long nanos) {
        return nanos == NONE ? row : row.append(nanos);
    }

    /** The samples file's content: response times of the measured requests without error. */
    void addSamples(Samples samples) {
        samples.reserve(schedule.measured());
        for (int k = schedule.warmup(); k < schedule.size(); k++) {
            if (outcome[k] == Outcome.OK.code()) {
                samples.add(received[k] - schedule.offset(k));
            }
        }
    }

    /** The result's figures over the measured requests. */
    LoadReport report(LoadShape shape) {
        long ok = 0;
        long lastReceived = NONE;
        Map<String, Long> errors = new LinkedHashMap<>();
        long[] lateness = new long[schedule.measured()];
        int late = 0;
        for (int k = schedule.warmup(); k < schedule.size(); k++) {
            Outcome end = Outcome.of(outcome[k]);
            if (end == Outcome.OK) {
                ok++;
                lastReceived = Math.max(lastReceived, received[k]);
            } else {
                errors.merge(end.label(), 1L, Long::sum);
            }
            if (sent[k] != NONE) {
                lateness[late++] = sent[k] - schedule.offset(k);
            }
        }
        long span = lastReceived - shape.warmupMs() * 1_000_000L;
        double achieved = ok == 0 || span <= 0 ? 0 : ok * 1e9 / span;
        return new LoadReport(shape, schedule.warmup(), schedule.measured(), ok,
                schedule.measured() - ok, errors, achieved, p99(lateness, late), failure());
    }

    /** Nearest rank: the ⌈0.99 n⌉-th smallest of the first n values; null for none. */
    static Long p99(long[] values, int n) {
        if (n == 0) {
            return null;
        }
        long[] sorted = Arrays.copyOf(values, n);
        Arrays.sort(sorted);
        return sorted[(int) Math.ceilDiv(99L * n, 100L) - 1];
    }
}
