package dev.ipclab.peer.burst;

import java.io.IOException;
import java.util.Optional;

/**
 * The one table of this peer's burst server models (PROTOCOL.md 11.4): each model's name, what
 * it starts before READY and how it serves. The command line, {@link BurstServer} and the
 * {@code capabilities} answer (through {@code Mechanism.serverModels()}) read it.
 */
public enum ServerModel {
    /** One loop: accept, serve, close, accept again. */
    ITERATIVE("iterative", server -> {}, server -> BurstModels.acceptLoop(server,
            BurstModels::serveInLoop)),
    /** A new platform thread per connection; spawn is Thread.start. */
    THREAD("thread", server -> {}, server -> BurstModels.acceptLoop(server,
            BurstModels.spawning(task -> Thread.ofPlatform().daemon().start(task)))),
    /** As thread with a virtual thread (JDK 21+); spawn is Thread.ofVirtual().start. */
    VIRTUAL_THREAD("virtual-thread", server -> {}, server -> BurstModels.acceptLoop(server,
            BurstModels.spawning(task -> Thread.ofVirtual().start(task)))),
    /** W platform threads started before READY (--workers, default 4); spawn is execute(). */
    THREAD_POOL("thread-pool", BurstModels::startPool, server -> BurstModels.acceptLoop(server,
            BurstModels.spawning(server.pool()::execute))),
    /** One thread, one Selector loop (as epoll): one accept per turn, connections non-blocking. */
    NIO("nio", server -> {}, NioModel::run);

    /** What a model does with the server: start its pool, or serve. */
    interface Step {
        void run(BurstServer server) throws IOException;
    }

    private final String label;
    private final Step prepare;
    private final Step serve;

    ServerModel(String label, Step prepare, Step serve) {
        this.label = label;
        this.prepare = prepare;
        this.serve = serve;
    }

    public static Optional<ServerModel> byName(String name) {
        for (ServerModel m : values()) {
            if (m.label.equals(name)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    public String label() {
        return label;
    }

    /** Starts what must exist before READY (a pool). */
    void prepare(BurstServer server) throws IOException {
        prepare.run(server);
    }

    /** Serves until the server has its N connections or is closed. */
    void serve(BurstServer server) throws IOException {
        serve.run(server);
    }
}
