package dev.ipclab.peer.server;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.transport.LoadQueue;
import dev.ipclab.peer.transport.ReplyDroppedException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * load over a message queue (PROTOCOL.md 11.5.5): every connection's REQUEST and END arrive as
 * single messages on one shared request queue; each is checked (section 2, its flags a reply
 * address), answered at that address and its payload checked after the answer left, by the
 * thread that received it. {@code iterative}: the serving thread alone; {@code thread-pool}: W
 * threads, started before READY, each receiving the next request. It runs until stopped and
 * writes no file; END_ACK counts the whole server's corrupted requests since the previous END.
 */
public final class QueueLoadServer implements Server {
    private final LoadQueue queue;
    private final String model;
    private final Worker[] workers;
    /** thread-pool's threads; null for iterative, whose one worker runs in {@link #serve}. */
    private final Thread[] pool;
    private final AtomicLong corrupted = new AtomicLong();
    private final PrintStream diagnostics;
    private volatile boolean stopping;
    /** The exit code of the first failure that ended the server (0: none). */
    private volatile int failure;
    private boolean closed;

    private QueueLoadServer(LoadQueue queue, String model, int threads, boolean pooled, long seed,
            PrintStream diagnostics) {
        this.queue = queue;
        this.model = model;
        this.diagnostics = diagnostics;
        this.workers = new Worker[threads];
        for (int i = 0; i < threads; i++) {
            workers[i] = new Worker(queue.receiver(), new Responder(seed, Fault.NONE));
        }
        this.pool = pooled ? new Thread[threads] : null;
    }

    /**
     * @param threads 1 (iterative) or W (thread-pool)
     * @param pooled thread-pool: the threads start now, so READY finds them waiting
     */
    public static QueueLoadServer open(LoadQueue queue, String model, int threads, boolean pooled,
            long seed, PrintStream diagnostics) {
        QueueLoadServer server = new QueueLoadServer(queue, model, threads, pooled, seed,
                diagnostics);
        if (pooled) {
            for (int i = 0; i < threads; i++) {
                Worker worker = server.workers[i];
                server.pool[i] = Thread.ofPlatform().daemon().name("ipclab-queue-load-" + i)
                        .start(worker::run);
            }
        }
        return server;
    }

    @Override
    public String endpoint() {
        return queue.endpoint();
    }

    @Override
    public String serverModel() {
        return model;
    }

    @Override
    public int serve() {
        if (pool == null) {
            return workers[0].run();
        }
        for (Thread thread : pool) {
            joinUninterruptibly(thread);
        }
        return failure;
    }

    private static void joinUninterruptibly(Thread thread) {
        while (true) {
            try {
                thread.join();
                return;
            } catch (InterruptedException e) {
                // Nobody interrupts the serving thread; the stop comes through the queue.
            }
        }
    }

    @Override
    public void stop() {
        stopping = true;
        queue.wake(workers.length);
    }

    /** Removes the queues: a thread still blocked on them wakes (sysv) or ends with the JVM. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stopping = true;
        try {
            queue.close();
        } catch (IOException e) {
            diagnostics.println("ipclab-peer: io: cannot remove the queues: "
                    + PeerException.describe(e));
        }
    }

    /**
     * Section 2's checks with a reply address in the flags, then what only a message can get
     * wrong: a REQUEST or END is exactly one message of 24 + length bytes (as a udp datagram).
     */
    static String problem(ByteBuffer message, int size) {
        if (size < Frame.HEADER_SIZE) {
            return "truncated header";
        }
        String problem = Frame.requestProblem(message, 0, Frame.Accepts.QUEUE_LOAD);
        if (problem != null) {
            return problem;
        }
        return size != Frame.HEADER_SIZE + Frame.length(message) ? "length mismatch" : null;
    }

    /**
     * END_ACK's count must hold every request received before that END (11.5.5): wait for the
     * other threads' requests still being answered and checked.
     */
    private void awaitChecks(Worker self) {
        for (Worker worker : workers) {
            while (worker != self && worker.checking) {
                Thread.yield(); // a check takes microseconds; its answer's send may take longer
            }
        }
    }

    /** One thread: its buffers, its responder (response frames and expected payloads). */
    private final class Worker {
        private final LoadQueue.Receiver receiver;
        private final Responder responder;
        private final Responder.Reply reply = this::send;
        /** From a request's receive until its payload is counted, after its RESPONSE left. */
        private volatile boolean checking;
        private int replyTo;

        Worker(LoadQueue.Receiver receiver, Responder responder) {
            this.receiver = receiver;
            this.responder = responder;
        }

        /** @return the exit code: 0 once stopped, 5 when the queues failed under it */
        int run() {
            while (!stopping) {
                int size;
                try {
                    size = receiver.receive();
                } catch (IOException e) {
                    return failed("cannot receive a request", e);
                }
                if (stopping) {
                    break;
                }
                // From the receive on, so that an END taken by another thread waits for it.
                checking = true;
                try {
                    handle(size);
                } catch (IOException e) {
                    return failed("cannot answer", e);
                } finally {
                    checking = false;
                }
            }
            return 0;
        }

        private void handle(int size) throws IOException {
            ByteBuffer in = receiver.received();
            String problem = problem(in, size);
            if (problem != null) {
                // No connection to close: the message is dropped and its sender gets no answer.
                diagnostics.println("ipclab-peer: rejected frame: " + problem);
                return;
            }
            replyTo = Short.toUnsignedInt(Frame.flags(in, 0)) - Frame.REPLY_ADDRESS;
            if (Frame.kind(in) == Frame.END) {
                // An END counts nothing itself, and two ENDs must not wait for each other.
                checking = false;
                awaitChecks(this);
                responder.answer(in, 0, reply, corrupted.getAndSet(0), 0);
                receiver.ended(replyTo);
                return;
            }
            corrupted.addAndGet(responder.answer(in, 0, reply, 0, 0));
        }

        /** An answer that cannot be delivered is dropped; its request is still checked. */
        private void send(ByteBuffer frame) throws IOException {
            try {
                receiver.reply(replyTo, frame);
            } catch (ReplyDroppedException e) {
                diagnostics.println("ipclab-peer: " + e.getMessage());
            }
        }

        private int failed(String what, IOException e) {
            if (stopping) {
                return 0;
            }
            diagnostics.println("ipclab-peer: io: " + what + ": " + PeerException.describe(e));
            failure = ErrorKind.IO.exitCode();
            stop();
            return failure;
        }
    }
}
