package dev.ipclab.peer.pattern;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/** Round-trip times in nanoseconds, recorded into a preallocated array, written raw at the end. */
public final class Samples {
    /** The largest Java array. */
    public static final long MAX = Integer.MAX_VALUE - 8;

    private long[] values = new long[0];
    private int count;
    private boolean discard;

    /** Samples nobody keeps (warm-up without --warmup-samples-file): add does nothing. */
    public static Samples discarding() {
        Samples samples = new Samples();
        samples.discard = true;
        return samples;
    }

    /** Makes room for all samples up front, so that recording one never allocates. */
    public void reserve(long capacity) {
        if (capacity > MAX) {
            throw new IllegalArgumentException("at most " + MAX + " samples");
        }
        values = new long[(int) capacity];
        count = 0;
    }

    /** Records one sample; called after the round trip's checks, outside the timed region. */
    public void add(long nanos) {
        if (!discard) {
            values[count++] = nanos;
        }
    }

    public int count() {
        return count;
    }

    long get(int index) {
        return values[index];
    }

    /** Little-endian signed 64-bit integers, no header: 8 bytes per sample (section 7). */
    public void writeTo(Path file) throws IOException {
        Files.deleteIfExists(file);
        Set<StandardOpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try (FileChannel out = FileChannel.open(file, options,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            ByteBuffer chunk = ByteBuffer.allocate(64 * 1024).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < count; i++) {
                if (!chunk.hasRemaining()) {
                    drain(out, chunk);
                }
                chunk.putLong(values[i]);
            }
            drain(out, chunk);
        }
    }

    private static void drain(FileChannel out, ByteBuffer chunk) throws IOException {
        chunk.flip();
        while (chunk.hasRemaining()) {
            out.write(chunk);
        }
        chunk.clear();
    }
}
