package dev.ipclab.peer.load;

import java.nio.file.Path;

/**
 * {@code drive --pattern load} (PROTOCOL.md 11.5.2): C connections, R requests per second in
 * total, spaced evenly or as a seeded Poisson process, over W ms of warm-up and D measured ms.
 *
 * @param recordsFile where the per-request records go (11.5.3)
 */
public record LoadShape(int clients, long rate, boolean poisson, long durationMs, long warmupMs,
        Path recordsFile) {
    public static final int MAX_CLIENTS = 1024;
    public static final long MAX_RATE = 10_000_000L;
    public static final long MAX_MS = 3_600_000L;

    public String arrival() {
        return poisson ? "poisson" : "fixed";
    }
}
