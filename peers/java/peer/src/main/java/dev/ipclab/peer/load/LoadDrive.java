package dev.ipclab.peer.load;

import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.pattern.Samples;
import dev.ipclab.peer.transport.ClientLink;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;

/**
 * {@code drive --pattern load} (PROTOCOL.md 11.5): the schedule, C connections, one platform
 * thread per connection (started before T0, all released at once after it is read), then the
 * records file, the samples and the result's figures. Requests that fail are results; a response
 * that fails validation is reported as the run's failure once every file is written.
 */
public final class LoadDrive {
    private LoadDrive() {}

    /** Opens one connection of the mechanism (tcp: TCP_NODELAY unless --nodelay off). */
    public interface Connector {
        ClientLink connect() throws IOException;
    }

    /** The frames' seed and sizes (sections 2-3). */
    public record Frames(long seed, int requestSize, int responseSize) {}

    /**
     * @param measured receives the response times of the measured requests without error
     * @throws PeerException unsupported: more requests than this client can record; io: the
     *     records file cannot be written
     */
    public static LoadReport drive(Connector connector, LoadShape shape, Frames frames,
            Samples measured) throws PeerException {
        Schedule schedule;
        try {
            schedule = Schedule.of(frames.seed(), shape, Samples.MAX);
        } catch (IllegalArgumentException e) {
            throw PeerException.unsupported(e.getMessage());
        }
        ClientLink[] links = new ClientLink[shape.clients()];
        try {
            for (int c = 0; c < links.length; c++) {
                links[c] = connector.connect();
            }
        } catch (IOException e) {
            closeAll(links);
            return LoadReport.notRun(shape, schedule, PeerException.io("cannot connect: "
                    + PeerException.describe(e), e));
        }
        LoadLedger ledger = new LoadLedger(schedule, shape.clients());
        run(ledger, links, frames);
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
    private static void run(LoadLedger ledger, ClientLink[] links, Frames frames) {
        CountDownLatch go = new CountDownLatch(1);
        long[] t0 = new long[1];
        Thread[] threads = new Thread[links.length];
        for (int c = 0; c < links.length; c++) {
            LoadConnection connection = new LoadConnection(c, links[c], ledger, go, t0,
                    frames.seed(), frames.requestSize(), frames.responseSize());
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

    private static void closeAll(ClientLink[] links) {
        for (ClientLink link : links) {
            if (link != null) {
                try {
                    link.close();
                } catch (IOException e) {
                    // Already failing: the connect error is the one reported.
                }
            }
        }
    }
}
