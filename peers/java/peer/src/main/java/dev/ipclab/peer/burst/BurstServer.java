package dev.ipclab.peer.burst;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.server.Server;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code serve --server-model M} (PROTOCOL.md 11.4): listens with the backlog, starts what the
 * model needs before READY, serves with the model until N connections have ended (or a signal
 * or end of stdin closes it), then stops its threads and writes the phases file. A load server
 * ({@code --pattern load}, 11.5.1) is the same server with another {@link ConnectionService}:
 * each connection carries section 2's exchange until END; it ends only when stopped and writes
 * no file. tcp or uds ({@link Listening}): a uds server removes its socket file when it closes.
 */
public final class BurstServer implements Server {
    private final ServerModel model;
    private final BurstOptions options;
    private final ServerSocketChannel listener;
    private final String endpoint;
    /** The uds file to remove on close; null for tcp. */
    private final Path socketFile;
    private final PhaseLog log = new PhaseLog();
    /** The burst's one round trip per connection; null for a load server. */
    private final BurstExchange exchange;
    private final ConnectionService service;
    private final PrintStream diagnostics;
    private final long seed;
    private final AtomicLong left;
    private volatile boolean finished;
    private Runnable waker;
    private volatile ExecutorService pool;
    private boolean closed;

    private BurstServer(ServerModel model, BurstOptions options, Listening listening,
            PrintStream diagnostics, long seed) {
        this.model = model;
        this.options = options;
        this.listener = listening.channel();
        this.endpoint = listening.endpoint();
        this.socketFile = listening.socketFile();
        if (options.load()) {
            this.exchange = null;
            this.service = new LoadExchange(seed, options.nodelay(), diagnostics);
        } else {
            this.exchange = new BurstExchange(seed, diagnostics);
            this.service = exchange;
        }
        this.diagnostics = diagnostics;
        this.seed = seed;
        this.left = new AtomicLong(options.connections());
        this.waker = this::closeListener;
    }

    /**
     * Listens on endpoint with the backlog (as the mechanism's maker does) and starts what the
     * model needs before READY.
     *
     * @throws IOException the endpoint cannot be made
     */
    public static BurstServer open(ServerModel model, Listening.Maker sockets, String endpoint,
            long seed, BurstOptions options, PrintStream diagnostics) throws IOException {
        Listening listening = sockets.listen(endpoint, options.backlog());
        BurstServer server = new BurstServer(model, options, listening, diagnostics, seed);
        try {
            model.prepare(server);
            return server;
        } catch (IOException | RuntimeException e) {
            // Not close(): a server that never started writes no phases file.
            server.removeSocketFile();
            server.closeListener();
            throw e;
        }
    }

    @Override
    public String endpoint() {
        return endpoint;
    }

    @Override
    public String serverModel() {
        return model.label();
    }

    @Override
    public int serve() {
        try {
            model.serve(this);
            return 0;
        } catch (IOException e) {
            if (finished) {
                return 0;
            }
            diagnostics.println("ipclab-peer: io: cannot accept a client: " + PeerException.describe(e));
            return ErrorKind.IO.exitCode();
        }
    }

    /** One connection ended (served or failed); the N-th ends the server. */
    void ended() {
        if (left.decrementAndGet() == 0) {
            stop();
        }
    }

    boolean finished() {
        return finished;
    }

    @Override
    public void stop() {
        finished = true;
        wake();
    }

    /** Wakes the model's loop: closes the listener, or wakes the event loop's selector. */
    private synchronized void wake() {
        waker.run();
    }

    /**
     * The event-loop model wakes its selector instead of closing the listener under it; null
     * before it closes the selector (synchronized with {@link #wake}: never a closed one).
     */
    synchronized void wakeWith(Runnable waker) {
        this.waker = waker == null ? this::closeListener : waker;
    }

    /** Stops accepting, interrupts the pool, then writes the phases file. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        finished = true;
        removeSocketFile();
        wake();
        closeListener();
        if (pool != null) {
            pool.shutdownNow();
        }
        service.close();
        if (options.load()) {
            return;
        }
        try {
            log.write(options.phasesFile());
        } catch (IOException e) {
            diagnostics.println("ipclab-peer: io: cannot write the phases file "
                    + options.phasesFile() + ": " + PeerException.describe(e));
        }
    }

    /**
     * The file first: on SIGTERM close runs in a shutdown hook that halts the process after it,
     * and removing the file is what outlives the process (as the rr uds listener does).
     */
    private void removeSocketFile() {
        if (socketFile == null) {
            return;
        }
        try {
            Files.deleteIfExists(socketFile);
        } catch (IOException e) {
            diagnostics.println("ipclab-peer: io: cannot remove " + socketFile + ": "
                    + PeerException.describe(e));
        }
    }

    private void closeListener() {
        try {
            listener.close();
        } catch (IOException e) {
            diagnostics.println("ipclab-peer: io: closing the listener: " + PeerException.describe(e));
        }
    }

    ServerSocketChannel listener() {
        return listener;
    }

    PhaseLog log() {
        return log;
    }

    BurstExchange exchange() {
        return exchange;
    }

    long seed() {
        return seed;
    }

    PrintStream diagnostics() {
        return diagnostics;
    }

    ConnectionService service() {
        return service;
    }

    BurstOptions options() {
        return options;
    }

    ExecutorService pool() {
        return pool;
    }

    void usePool(ExecutorService pool) {
        this.pool = pool;
    }
}
