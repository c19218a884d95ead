package dev.ipclab.peer.pattern;

import dev.ipclab.linuxipc.ResourceUsage;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.frame.StreamAck;
import dev.ipclab.peer.frame.StreamChecksum;
import java.io.IOException;

/**
 * The stream pattern's function (PROTOCOL.md section 11.1): MARK, warm-up messages, MARK, then
 * the measured stream cut into W windows, END. The clock and the CPU figures are taken when MARK's
 * answer arrives and when END's does; each window's time is taken after its last send, with no
 * allocation or check in between. The windows become samples only once END_ACK has passed
 * validation.
 */
public final class StreamDrive {
    /** What a stream adds to the result file (section 11.1 step 8). */
    public record Report(long streamNanos, long lost, ResourceUsage client, ResourceUsage server)
            implements dev.ipclab.peer.pattern.Report {}

    private StreamDrive() {}

    /** @param seed the payloads' seed (section 3): the checksum the server must have summed */
    public static Report drive(OneWay stream, StreamShape shape, long warmup, long seed,
            Samples measured) throws PeerException, IOException {
        long messages = shape.messages();
        int windows = (int) shape.windows();
        long perWindow = messages / windows;
        long[] times = new long[windows];

        // MARK 0 announces the warm-up (1 ... M), MARK M+1 the measured messages (M+2 ...).
        long sequence = 0;
        stream.start(sequence++, warmup);
        for (long last = warmup + 1; sequence < last; sequence++) {
            stream.data(sequence);
        }
        stream.mark(sequence++, messages);
        long start = System.nanoTime();
        ResourceUsage cpuAtStart = ResourceUsage.self();
        long windowStart = start;
        for (int w = 0; w < windows - 1; w++) {
            for (long last = sequence + perWindow; sequence < last; sequence++) {
                stream.data(sequence);
            }
            long now = System.nanoTime();
            times[w] = now - windowStart;
            windowStart = now;
        }
        for (long last = warmup + 2 + messages; sequence < last; sequence++) {
            stream.data(sequence);
        }
        StreamAck ack = stream.end(sequence);
        long stop = System.nanoTime();
        ResourceUsage cpu = ResourceUsage.self().since(cpuAtStart);
        times[windows - 1] = stop - windowStart;

        long lost = check(ack, shape, warmup, seed, stream.lossy());
        for (long t : times) {
            measured.add(t);
        }
        return new Report(stop - start, lost, cpu, ack.cpu());
    }

    /**
     * Step 5: every message arrived, in order, with the bytes sent; on a lossy link losses are
     * counted, and the checksum is compared only when none was lost.
     *
     * @return the messages lost (0 unless lossy)
     */
    static long check(StreamAck ack, StreamShape shape, long warmup, long seed, boolean lossy)
            throws PeerException {
        long messages = shape.messages();
        long lost = messages - ack.received();
        boolean countsWrong = ack.received() > messages || (!lossy && lost != 0);
        if (countsWrong || (lost == 0 && ack.gaps() != 0)) {
            throw PeerException.mismatch("payload mismatch: the server received "
                    + Long.toUnsignedString(ack.received()) + " of " + messages + " messages, "
                    + Long.toUnsignedString(ack.gaps()) + (ack.gaps() == 1 ? " gap" : " gaps"));
        }
        if (lost == 0) {
            long expected = StreamChecksum.expected(seed, shape.messageSize(), warmup + 2,
                    messages);
            if (expected != ack.checksum()) {
                throw PeerException.mismatch("payload mismatch: stream checksum: the client sent "
                        + hex(expected) + ", the server received " + hex(ack.checksum()));
            }
        }
        return lost;
    }

    private static String hex(long value) {
        return String.format("0x%016x", value);
    }
}
