package dev.ipclab.peer.transport;

import dev.ipclab.linuxipc.NoReplaceRename;
import dev.ipclab.peer.frame.Frame;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.WatchService;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * file and file-poll (PROTOCOL.md section 4.2): one file per frame in a private directory. The
 * writer writes {@code req.tmp} / {@code resp.tmp} (0600), closes it and renames it to
 * {@code req} / {@code resp}; the reader waits for the name, reads the whole file and removes it.
 * file waits with a {@link WatchService} (ENTRY_CREATE, which a rename into place raises);
 * file-poll checks every --poll-interval-us, parking in between ({@link FileWaiter}).
 */
public final class FileFrames {
    static final String REQUEST = "req";
    static final String RESPONSE = "resp";
    private static final Set<OpenOption> WRITE_OPTIONS = Set.of(StandardOpenOption.WRITE,
            StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(EnumSet.of(PosixFilePermission.OWNER_READ,
                    PosixFilePermission.OWNER_WRITE));

    private FileFrames() {}

    /** Writes frame [position, limit) as name.tmp, then renames it to name. */
    static void write(Path tmp, Path target, ByteBuffer frame) throws IOException {
        writeTemporary(tmp, frame);
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void writeTemporary(Path tmp, ByteBuffer frame) throws IOException {
        try (FileChannel out = FileChannel.open(tmp, WRITE_OPTIONS, OWNER_ONLY)) {
            while (frame.hasRemaining()) {
                out.write(frame);
            }
        }
    }

    /** Opens the file that has appeared and removes its name; the caller reads and closes it. */
    static FileChannel take(Path file) throws IOException {
        FileChannel in = FileChannel.open(file, StandardOpenOption.READ);
        try {
            Files.delete(file);
        } catch (NoSuchFileException e) {
            // Removed by someone else meanwhile; we hold its bytes anyway.
        }
        return in;
    }

    /** Reads until dst is full or the file ends; returns the bytes read. */
    static int readFully(FileChannel in, ByteBuffer dst) throws IOException {
        int total = 0;
        while (dst.hasRemaining()) {
            int n = in.read(dst);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }

    static void removeLeftovers(Path dir) throws IOException {
        IOException first = null;
        for (String name : new String[] {REQUEST, RESPONSE, REQUEST + ".tmp", RESPONSE + ".tmp"}) {
            try {
                Files.deleteIfExists(dir.resolve(name));
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** The server: waits for req, hands its bytes to the frame reader, writes resp. */
    public static StreamListener listen(String endpoint, long pollIntervalNanos)
            throws IOException {
        Path dir = Path.of(Endpoints.path(endpoint));
        if (!Files.isDirectory(dir)) {
            throw new NoSuchFileException(endpoint, null, "not a directory");
        }
        FileWaiter waiter = FileWaiter.of(dir, pollIntervalNanos);
        return StoppableListener.of(endpoint, () -> new Connection(dir, waiter), waiter::close, () -> {
            try {
                waiter.close();
            } finally {
                removeLeftovers(dir);
            }
        });
    }

    public static ClientLink connect(String endpoint, long ioTimeoutNanos,
            long pollIntervalNanos) throws IOException {
        Path dir = Path.of(Endpoints.path(endpoint));
        if (!Files.isDirectory(dir)) {
            throw new NoSuchFileException(endpoint, null, "not a directory");
        }
        return new Link(dir, FileWaiter.of(dir, pollIntervalNanos), ioTimeoutNanos);
    }

    /** The server's stream: the bytes of one req file after another. */
    private static final class Connection implements StreamConnection {
        private final Path req;
        private final Path resp;
        private final Path respTmp;
        private final FileWaiter waiter;
        private final ByteBuffer header = Frame.allocate(Frame.HEADER_SIZE);
        private FileChannel current;
        /** Section 11.1: each file is a bare message of this size; 0: each file is a frame. */
        private int messageSize;

        Connection(Path dir, FileWaiter waiter) {
            this.req = dir.resolve(REQUEST);
            this.resp = dir.resolve(RESPONSE);
            this.respTmp = dir.resolve(RESPONSE + ".tmp");
            this.waiter = waiter;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            while (true) {
                if (current == null) {
                    if (!waiter.await(req, 0)) {
                        return -1;
                    }
                    current = take(req);
                    check(current);
                }
                int n = current.read(dst);
                if (n >= 0) {
                    return n;
                }
                current.close();
                current = null;
            }
        }

        @Override
        public void expectMessages(int size) {
            messageSize = size;
        }

        /**
         * Size checks a stream cannot make: short file, or size other than 24 + length; a
         * stream's message file must have the size its MARK announced.
         */
        private void check(FileChannel file) throws IOException {
            long size = file.size();
            if (messageSize != 0) {
                if (size != messageSize) {
                    throw new FrameRejectedException("length mismatch");
                }
                return;
            }
            if (size < Frame.HEADER_SIZE) {
                throw new FrameRejectedException("truncated header");
            }
            header.clear();
            while (header.hasRemaining() && file.read(header, header.position()) >= 0) {
                // positional reads leave the channel's position at 0
            }
            if (Frame.requestProblem(header) == null
                    && size != Frame.HEADER_SIZE + Frame.length(header)) {
                throw new FrameRejectedException("length mismatch");
            }
        }

        @Override
        public void write(ByteBuffer src) throws IOException {
            FileFrames.write(respTmp, resp, src);
        }

        @Override
        public void close() throws IOException {
            if (current != null) {
                current.close();
                current = null;
            }
        }
    }

    /**
     * The client: writes req, waits for resp (bounded by --io-timeout), reads it whole. req is
     * renamed into place without replacing: a stream's next message waits until the server has
     * taken the previous one (in rr, req is always free by then).
     */
    private static final class Link implements ClientLink {
        private final Path req;
        private final Path reqTmp;
        private final Path resp;
        private final NoReplaceRename publish;
        private final FileWaiter waiter;
        private final long timeoutNanos;

        Link(Path dir, FileWaiter waiter, long timeoutNanos) {
            this.req = dir.resolve(REQUEST);
            this.reqTmp = dir.resolve(REQUEST + ".tmp");
            this.resp = dir.resolve(RESPONSE);
            this.publish = new NoReplaceRename(reqTmp, req);
            this.waiter = waiter;
            this.timeoutNanos = timeoutNanos;
        }

        @Override
        public void send(ByteBuffer frame) throws IOException {
            writeTemporary(reqTmp, frame);
            while (!publish.run()) {
                if (!waiter.awaitGone(req, timeoutNanos)) {
                    throw new ReceiveTimeoutException("the server did not take " + REQUEST
                            + " within --io-timeout (" + timeoutNanos / 1e9 + " s)");
                }
            }
        }

        /** @return the file's size, so that a file of the wrong size is a protocol error */
        @Override
        public int receive(ByteBuffer dst, int frameSize) throws IOException {
            if (!waiter.await(resp, timeoutNanos)) {
                throw new ReceiveTimeoutException("no " + RESPONSE + " file within --io-timeout ("
                        + timeoutNanos / 1e9 + " s)");
            }
            try (FileChannel in = take(resp)) {
                long size = in.size();
                dst.clear().limit((int) Math.min(dst.capacity(), size));
                readFully(in, dst);
                return (int) Math.min(size, Integer.MAX_VALUE);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                waiter.close();
            } finally {
                publish.close();
            }
        }
    }
}
