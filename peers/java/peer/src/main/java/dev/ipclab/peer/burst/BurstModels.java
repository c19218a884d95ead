package dev.ipclab.peer.burst;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The blocking burst models of {@link ServerModel}: one accept loop that times accept and loop,
 * and what each model does with an accepted connection (serve it in the loop, or hand it to a
 * new thread, a virtual thread or a pool, timing spawn and start_delay).
 */
final class BurstModels {
    /** A pool thread's index (the phases file's {@code worker}); 0 on any other thread. */
    private static final ThreadLocal<Integer> POOL_WORKER = ThreadLocal.withInitial(() -> 0);

    private BurstModels() {}

    /** What the loop does with a connection it accepted. */
    interface Dispatch {
        void handOff(BurstServer server, SocketChannel channel, PhaseRecord record);
    }

    /** The call that starts a task: Thread.start, Thread.ofVirtual().start, Executor.execute. */
    interface Spawn {
        void start(Runnable task);
    }

    /**
     * Accepts until the server has its N connections or is closed. A connection's loop runs
     * from its accept's return to the start of the next accept call.
     */
    static void acceptLoop(BurstServer server, Dispatch dispatch) throws IOException {
        ServerSocketChannel listener = server.listener();
        PhaseRecord previous = null;
        while (!server.finished()) {
            long start = System.nanoTime();
            if (previous != null) {
                previous.loop = start - previous.acceptedAt;
            }
            SocketChannel channel;
            try {
                channel = listener.accept();
            } catch (ClosedChannelException e) {
                return; // ended or stopped: the listener is closed to wake us
            }
            previous = server.log().accepted(start, System.nanoTime(), 0);
            dispatch.handOff(server, channel, previous);
        }
    }

    static void serveInLoop(BurstServer server, SocketChannel channel, PhaseRecord record) {
        server.service().serve(channel, record);
        server.ended();
    }

    /** Hands each connection to a task started by {@code spawn}, timing the call. */
    static Dispatch spawning(Spawn spawn) {
        return (server, channel, record) -> {
            Task task = new Task(server, channel, record);
            task.spawnedAt = System.nanoTime();
            spawn.start(task);
            record.spawn = System.nanoTime() - task.spawnedAt;
        };
    }

    /** One connection's task; spawnedAt is written before the start call, which publishes it. */
    private static final class Task implements Runnable {
        private final BurstServer server;
        private final SocketChannel channel;
        private final PhaseRecord record;
        long spawnedAt;

        Task(BurstServer server, SocketChannel channel, PhaseRecord record) {
            this.server = server;
            this.channel = channel;
            this.record = record;
        }

        @Override
        public void run() {
            record.startDelay = System.nanoTime() - spawnedAt;
            record.worker = POOL_WORKER.get();
            serveInLoop(server, channel, record);
        }
    }

    /** thread-pool: W platform threads, all started now (before READY), numbered 0 … W-1. */
    static void startPool(BurstServer server) {
        int workers = server.options().workers();
        AtomicInteger next = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(workers, workers, 0, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), worker -> {
                    int index = next.getAndIncrement();
                    return Thread.ofPlatform().daemon().name("ipclab-pool-" + index).unstarted(() -> {
                        POOL_WORKER.set(index);
                        worker.run();
                    });
                });
        pool.prestartAllCoreThreads();
        server.usePool(pool);
    }
}
