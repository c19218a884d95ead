package dev.ipclab.peer.burst;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Every accepted connection's {@link PhaseRecord}, and the phases file made from them. */
final class PhaseLog {
    static final String HEADER = "conn_index,accept_ns,loop_ns,spawn_ns,start_delay_ns,"
            + "transfer_ns,total_ns,accept_start_ns,worker,error\n";

    private final List<PhaseRecord> records = new ArrayList<>();

    synchronized PhaseRecord accepted(long acceptStart, long acceptedAt, int worker) {
        PhaseRecord record = new PhaseRecord(acceptStart, acceptedAt, worker);
        records.add(record);
        return record;
    }

    /**
     * The rows as the records are now, in conn_index order (the order the accepts returned); a
     * connection whose task had not finished is {@code lost}.
     */
    synchronized List<String> rows() {
        List<PhaseRecord> sorted = new ArrayList<>(records);
        sorted.sort(Comparator.comparingLong(r -> r.acceptedAt));
        List<String> rows = new ArrayList<>(sorted.size());
        for (int i = 0; i < sorted.size(); i++) {
            rows.add(row(i, sorted.get(i)));
        }
        return rows;
    }

    static String row(int index, PhaseRecord r) {
        boolean done = r.done;
        String error = r.error != null ? r.error : done ? "" : "lost";
        return index + "," + r.accept() + "," + field(r.loop) + "," + field(r.spawn) + ","
                + field(r.startDelay) + "," + field(r.transfer) + "," + field(done ? r.total
                : PhaseRecord.NONE) + "," + r.acceptStart + "," + r.worker + "," + error + "\n";
    }

    private static String field(long nanos) {
        return nanos == PhaseRecord.NONE ? "" : Long.toString(nanos);
    }

    /** The phases file: written under a temporary name, then renamed into place. */
    void write(Path path) throws IOException {
        Path tmp = path.resolveSibling(path.getFileName() + ".tmp" + ProcessHandle.current().pid());
        try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.US_ASCII)) {
            out.write(HEADER);
            for (String row : rows()) {
                out.write(row);
            }
        }
        Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
