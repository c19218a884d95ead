package dev.ipclab.peer.transport;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How a reader of file and file-poll (PROTOCOL.md section 4.2) learns that a name has appeared
 * or gone: file watches the directory ({@link Watching}), file-poll checks every
 * --poll-interval-us ({@link Polling}).
 */
abstract class FileWaiter implements AutoCloseable {
    /**
     * Waits until the file exists.
     *
     * @param timeoutNanos 0 for no limit
     * @return false if the timeout expired (or the waiter was closed)
     */
    abstract boolean await(Path file, long timeoutNanos) throws IOException;

    /**
     * Waits until the file no longer exists (a stream's writer, whose previous frame the
     * reader has not taken yet).
     *
     * @return false if the timeout expired
     */
    abstract boolean awaitGone(Path file, long timeoutNanos) throws IOException;

    @Override
    public void close() throws IOException {}

    /** file: a directory watch; registered when made, so before READY or the first request. */
    static final class Watching extends FileWaiter {
        private final Path dir;
        private final WatchService watcher;
        /** Removals, watched only once a stream's writer has had to wait (not during rr). */
        private WatchService removals;

        Watching(Path dir) throws IOException {
            this.dir = dir;
            this.watcher = watch(dir, StandardWatchEventKinds.ENTRY_CREATE);
        }

        private static WatchService watch(Path dir, WatchEvent.Kind<Path> kind) throws IOException {
            WatchService service = FileSystems.getDefault().newWatchService();
            try {
                dir.register(service, kind);
                return service;
            } catch (IOException | RuntimeException e) {
                service.close();
                throw e;
            }
        }

        @Override
        boolean await(Path file, long timeoutNanos) throws IOException {
            return until(watcher, () -> Files.exists(file), file, timeoutNanos);
        }

        @Override
        boolean awaitGone(Path file, long timeoutNanos) throws IOException {
            if (removals == null) {
                removals = watch(dir, StandardWatchEventKinds.ENTRY_DELETE);
            }
            return until(removals, () -> !Files.exists(file), file, timeoutNanos);
        }

        /** Re-checks the condition after every event of the service, until it holds. */
        private static boolean until(WatchService service, BooleanSupplier holds, Path file,
                long timeoutNanos) throws IOException {
            long deadline = System.nanoTime() + timeoutNanos;
            try {
                while (!holds.getAsBoolean()) {
                    WatchKey key;
                    if (timeoutNanos <= 0) {
                        key = service.take();
                    } else {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            return false;
                        }
                        key = service.poll(left, TimeUnit.NANOSECONDS);
                        if (key == null) {
                            return holds.getAsBoolean();
                        }
                    }
                    key.pollEvents();
                    key.reset();
                }
                return true;
            } catch (ClosedWatchServiceException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for " + file, e);
            }
        }

        @Override
        public void close() throws IOException {
            ChannelConnection.closeAll(watcher, removals != null ? removals : () -> { });
        }
    }

    /** file-poll: checks every interval, sleeping with LockSupport.parkNanos in between. */
    static final class Polling extends FileWaiter {
        private final long intervalNanos;
        private volatile boolean closed;

        Polling(long intervalNanos) {
            this.intervalNanos = intervalNanos;
        }

        @Override
        boolean await(Path file, long timeoutNanos) {
            return until(() -> Files.exists(file), timeoutNanos);
        }

        @Override
        boolean awaitGone(Path file, long timeoutNanos) {
            return until(() -> !Files.exists(file), timeoutNanos);
        }

        private boolean until(BooleanSupplier holds, long timeoutNanos) {
            long deadline = System.nanoTime() + timeoutNanos;
            while (!holds.getAsBoolean()) {
                if (closed || (timeoutNanos > 0 && System.nanoTime() - deadline >= 0)) {
                    return false;
                }
                LockSupport.parkNanos(intervalNanos);
            }
            return true;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** @param pollIntervalNanos file-poll's interval; 0 for file, which watches the directory */
    static FileWaiter of(Path dir, long pollIntervalNanos) throws IOException {
        return pollIntervalNanos == 0 ? new Watching(dir) : new Polling(pollIntervalNanos);
    }
}
