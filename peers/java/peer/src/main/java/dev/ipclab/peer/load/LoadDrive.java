package dev.ipclab.peer.load;

import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.pattern.Samples;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;

/**
 * {@code drive --pattern load} (PROTOCOL.md 11.5): the schedule, C connections, one platform
 * thread per connection (started before T0, all released at once after it is read), then the
 * records file, the samples and the result's figures. Requests that fail are results; a response
 * that fails validation, or a non-zero sum of the connections' corrupted-request counts, is
 * reported as the run's failure once every file is written. What a connection is (section 2's
 * frames, or an RPC framework's client, 11.5.4) is its {@link LoadCalls}'.
 */
public final class LoadDrive {
    private LoadDrive() {}

    /**
     * Opens connection c (0 … C − 1) of the mechanism, its buffers or arguments made (tcp:
     * TCP_NODELAY unless --nodelay off; RPC: a client object of the framework with a connection
     * of its own; a message queue: c is the reply address, 11.5.5).
     */
    public interface Connector {
        /**
         * @throws IOException the connection cannot be made (the case ends as io, not run)
         * @throws PeerException this client cannot make it as asked (unsupported)
         */
        LoadCalls connect(int connection) throws IOException, PeerException;
    }

    /**
     * @param measured receives the response times of the measured requests without error
     * @throws PeerException unsupported: more requests than this client can record; io: the
     *     records file cannot be written
     */
    public static LoadReport drive(Connector connector, LoadShape shape, long seed,
            Samples measured) throws PeerException {
        Schedule schedule;
        try {
            schedule = Schedule.of(seed, shape, Samples.MAX);
        } catch (IllegalArgumentException e) {
            throw PeerException.unsupported(e.getMessage());
        }
        LoadCalls[] connections = new LoadCalls[shape.clients()];
        try {
            for (int c = 0; c < connections.length; c++) {
                connections[c] = connector.connect(c);
            }
        } catch (IOException e) {
            closeAll(connections);
            return LoadReport.notRun(shape, schedule, PeerException.io("cannot connect: "
                    + PeerException.describe(e), e));
        } catch (PeerException e) {
            closeAll(connections);
            throw e;
        }
        LoadLedger ledger = new LoadLedger(schedule, shape.clients());
        run(ledger, connections);
        ledger.checkCorrupted();
        ledger.addSamples(measured);
        try {
            ledger.writeRecords(shape.recordsFile());
        } catch (IOException e) {
            throw PeerException.io("cannot write the records file " + shape.recordsFile() + ": "
                    + PeerException.describe(e), e);
        }
        return ledger.report(shape);
    }

    /** Starts a thread per connection, reads T0, releases them all, waits for every one. */
    private static void run(LoadLedger ledger, LoadCalls[] connections) {
        CountDownLatch go = new CountDownLatch(1);
        long[] t0 = new long[1];
        Thread[] threads = new Thread[connections.length];
        for (int c = 0; c < connections.length; c++) {
            LoadConnection connection = new LoadConnection(c, connections[c], ledger, go, t0);
            threads[c] = Thread.ofPlatform().name("ipclab-load-" + c).start(connection);
        }
        t0[0] = System.nanoTime();
        go.countDown();
        for (Thread thread : threads) {
            joinUninterruptibly(thread);
        }
    }

    private static void joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Already failing: the connect error is the one reported. */
    private static void closeAll(LoadCalls[] connections) {
        for (LoadCalls connection : connections) {
            if (connection != null) {
                connection.close();
            }
        }
    }
}
