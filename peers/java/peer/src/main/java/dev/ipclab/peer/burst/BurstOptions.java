package dev.ipclab.peer.burst;

import java.nio.file.Path;
import java.util.Set;

/**
 * {@code serve --server-model} (PROTOCOL.md 11.4, 11.5.1): the model stays a string, because an
 * unknown one is unsupported (exit 7), reported when the server opens, not a usage error.
 *
 * @param connections the server ends by itself once this many connections have ended
 * @param phasesFile where the phases go; null for a load server, which writes no file
 * @param backlog the {@code listen()} backlog asked for (the kernel caps it at somaxconn)
 * @param workers the pool size of thread-pool
 * @param load {@code --pattern load}: each connection carries section 2's exchange until END
 * @param nodelay load: TCP_NODELAY on accepted sockets (--nodelay on, the default)
 * @param tuning load: which of the tuning flags --workers, --backlog, --nodelay were given; a
 *     load server that is not a burst server refuses some (PROTOCOL.md 11.5.4, 11.5.5:
 *     unsupported)
 */
public record BurstOptions(String serverModel, long connections, Path phasesFile, int backlog,
        int workers, boolean load, boolean nodelay, Set<String> tuning) {
    public static final int DEFAULT_BACKLOG = 512;
    public static final int DEFAULT_WORKERS = 4;
    public static final String WORKERS = "workers";
    public static final String BACKLOG = "backlog";
    public static final String NODELAY = "nodelay";

    /** A burst server (11.4). */
    public BurstOptions(String serverModel, long connections, Path phasesFile, int backlog,
            int workers) {
        this(serverModel, connections, phasesFile, backlog, workers, false, true, Set.of());
    }

    /** A load server (11.5.1): serves until stopped, backlog 512, no phases file. */
    public static BurstOptions load(String serverModel, int workers, boolean nodelay) {
        return load(serverModel, workers, nodelay, Set.of());
    }

    /** @param tuning the names of --workers, --backlog, --nodelay where given */
    public static BurstOptions load(String serverModel, int workers, boolean nodelay,
            Set<String> tuning) {
        return new BurstOptions(serverModel, Long.MAX_VALUE, null, DEFAULT_BACKLOG, workers, true,
                nodelay, Set.copyOf(tuning));
    }

    /** --workers or --backlog given, which an RPC framework's own server does not take (11.5.4). */
    public boolean tuned() {
        return tuning.contains(WORKERS) || tuning.contains(BACKLOG);
    }
}
