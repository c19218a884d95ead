package dev.ipclab.peer.objects;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.pattern.Samples;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Arrays;

/**
 * The client of {@code --payload object} (PROTOCOL.md 4.6), the published LinuxIPC benchmark:
 * per round trip a Long (the clock reading that starts the sample) and a byte[] go out through
 * an ObjectOutputStream and come back through an ObjectInputStream; both streams reset after
 * each round trip, so every round trip serialises its objects in full. The checks follow the
 * clock. END is the Long -1, answered with the server's count of corrupted requests. With
 * {@code --payload long} (Wells' Figure 1, "minimal data") the String "long" goes first, before
 * the warm-up, and a round trip is the Long alone each way.
 */
public final class ObjectDrive {
    /**
     * What the client needs.
     *
     * @param size the request and response array length (they are equal, PROTOCOL.md 4.6)
     * @param longs --payload long: a Long alone each way, no array
     */
    public record Options(String mechanism, String endpoint, long seed, int size, long warmup,
            long iterations, long ioTimeoutNanos, boolean nodelay, boolean longs) {}

    private final Options options;
    private final ObjectWire.Stamped request;
    private final ObjectWire.Stamped expected;
    private ObjectOutputStream out;
    private ObjectInputStream in;
    private ObjectLink link;

    private ObjectDrive(Options options) {
        this.options = options;
        this.request = new ObjectWire.Stamped(options.seed(), Payload.REQUEST_STREAM, options.size());
        this.expected = new ObjectWire.Stamped(options.seed(), Payload.RESPONSE_STREAM, options.size());
    }

    /** Whether the mechanism carries object streams (else the client reports unsupported). */
    public static boolean carries(String mechanism) {
        return ObjectLink.MECHANISMS.contains(mechanism);
    }

    /** Connects, runs warm-up and measured round trips, ends with END. */
    public static void drive(Options options, Samples warm, Samples measured)
            throws PeerException, IOException {
        ObjectDrive drive = new ObjectDrive(options);
        try (ObjectLink link = ObjectLink.open(options.mechanism(), options.endpoint(),
                options.ioTimeoutNanos(), options.nodelay())) {
            drive.link = link;
            // The header is written now and leaves with the first round trip's objects (long:
            // with the mode's String, sent before the warm-up, outside every clock).
            drive.out = new ObjectOutputStream(new BufferedOutputStream(link.out(), ObjectWire.BUFFER));
            if (options.longs()) {
                drive.out.writeObject(ObjectWire.LONG_MODE);
                drive.out.flush();
            }
            long sequence = 0;
            for (; sequence < options.warmup(); sequence++) {
                warm.add(drive.roundTrip(sequence));
            }
            for (long i = 0; i < options.iterations(); i++, sequence++) {
                measured.add(drive.roundTrip(sequence));
            }
            drive.finish();
        } catch (ClassNotFoundException e) {
            throw PeerException.protocol("the server sent an object of an unknown class: "
                    + e.getMessage(), e);
        }
    }

    /** One timed round trip; the checks come after the second clock reading. */
    private long roundTrip(long sequence) throws IOException, ClassNotFoundException, PeerException {
        if (options.longs()) {
            return longRoundTrip(sequence);
        }
        byte[] body = request.at(sequence);
        long start = System.nanoTime();
        Long stamp = start;
        out.writeObject(stamp);
        out.writeObject(body);
        out.reset();
        out.flush();
        Object echoed = input().readObject();
        Object answer = in.readObject();
        long stop = System.nanoTime();
        check(sequence, stamp, echoed, answer);
        return stop - start;
    }

    /** --payload long: the Long out and the same Long back, nothing else. */
    private long longRoundTrip(long sequence) throws IOException, ClassNotFoundException,
            PeerException {
        long start = System.nanoTime();
        Long stamp = start;
        out.writeObject(stamp);
        out.reset();
        out.flush();
        Object echoed = input().readObject();
        long stop = System.nanoTime();
        checkEcho(sequence, stamp, echoed);
        return stop - start;
    }

    /**
     * The input stream, made at the first answer: its constructor reads the server's stream
     * header, which the server sends only with its first answer.
     */
    private ObjectInputStream input() throws IOException {
        if (in == null) {
            in = new ObjectInputStream(new BufferedInputStream(link.in(), ObjectWire.BUFFER));
            in.setObjectInputFilter(ObjectWire.filter(options.size()));
        }
        return in;
    }

    private void check(long sequence, Long stamp, Object echoed, Object answer) throws PeerException {
        checkEcho(sequence, stamp, echoed);
        if (!(answer instanceof byte[] bytes) || bytes.length != expected.length()) {
            throw PeerException.protocol("round trip " + sequence + ": expected a byte["
                    + expected.length() + "], got " + describe(answer), null);
        }
        int offset = Arrays.mismatch(bytes, expected.at(sequence));
        if (offset >= 0) {
            throw new PeerException(ErrorKind.PAYLOAD_MISMATCH, "payload mismatch: response "
                    + "sequence " + sequence + " differs from the expected bytes at offset " + offset);
        }
    }

    private static void checkEcho(long sequence, Long stamp, Object echoed) throws PeerException {
        if (!stamp.equals(echoed)) {
            throw PeerException.protocol("round trip " + sequence + ": the server echoed "
                    + describe(echoed) + " " + echoed + ", not the Long " + stamp, null);
        }
    }

    /** END: the Long -1; the answer is the Long count of corrupted requests. */
    private void finish() throws IOException, ClassNotFoundException, PeerException {
        out.writeObject(ObjectWire.END);
        out.flush();
        Object count = input().readObject();
        if (!(count instanceof Long corrupted)) {
            throw PeerException.protocol("END: expected the Long count of corrupted requests, got "
                    + describe(count), null);
        }
        if (corrupted != 0) {
            throw new PeerException(ErrorKind.PAYLOAD_MISMATCH, "payload mismatch: server received "
                    + corrupted + " corrupted request payloads");
        }
    }

    static String describe(Object value) {
        if (value instanceof byte[] bytes) {
            return "byte[" + bytes.length + "]";
        }
        return value == null ? "null" : value.getClass().getName();
    }
}
