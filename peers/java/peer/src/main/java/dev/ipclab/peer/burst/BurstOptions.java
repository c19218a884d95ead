package dev.ipclab.peer.burst;

import java.nio.file.Path;

/**
 * {@code serve --server-model} (PROTOCOL.md 11.4): the model stays a string, because an unknown
 * one is unsupported (exit 7), reported when the server opens, not a usage error.
 *
 * @param connections the server ends by itself once this many connections have ended
 * @param backlog the {@code listen()} backlog asked for (the kernel caps it at somaxconn)
 * @param workers the pool size of thread-pool
 */
public record BurstOptions(String serverModel, long connections, Path phasesFile, int backlog,
        int workers) {
    public static final int DEFAULT_BACKLOG = 512;
    public static final int DEFAULT_WORKERS = 4;
}
