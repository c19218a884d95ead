package dev.ipclab.peer.objects;

import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.transport.StreamConnection;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamException;
import java.io.OutputStream;
import java.io.StreamCorruptedException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The server side of {@code --payload object} (PROTOCOL.md 4.6) on one stream connection whose
 * first bytes were a Java serialization header: reads a Long and a byte[], answers the same Long
 * and a byte[] of the same length (payload stream 2), resets, and checks the request after the
 * answer has left; END (the Long -1) is answered with the count of corrupted requests, and the
 * connection ends. The response array is made once per size, as the frame server's is. A first
 * object that is the String "long" starts {@code --payload long} instead: each Long is answered
 * with the same Long alone, END with 0 (a Long cannot arrive corrupted without failing to read).
 */
public final class ObjectServer {
    private final long seed;
    private final boolean flipResponseByte;
    private ObjectWire.Stamped response;
    private ObjectWire.Stamped expected;

    /**
     * @param flipResponseByte --fault flip-response-byte: the last byte of each response flipped
     */
    public ObjectServer(long seed, boolean flipResponseByte) {
        this.seed = seed;
        this.flipResponseByte = flipResponseByte;
    }

    /**
     * Serves the connection until END or the client's close.
     *
     * @param received the bytes already read from the connection (the header and more), at
     *     [position, limit)
     * @return null after END or a close between round trips, else why the stream was refused
     * @throws IOException when the transport fails
     */
    public String serve(ByteBuffer received, StreamConnection connection) throws IOException {
        InputStream raw = new ConnectionInput(received, connection);
        OutputStream sink = new ConnectionOutput(connection);
        try {
            ObjectInputStream in = new ObjectInputStream(new BufferedInputStream(raw, ObjectWire.BUFFER));
            in.setObjectInputFilter(ObjectWire.filter(ObjectWire.maxPayload()));
            ObjectOutputStream out = new ObjectOutputStream(new BufferedOutputStream(sink, ObjectWire.BUFFER));
            return exchange(in, out);
        } catch (EOFException e) {
            return null;
        } catch (ObjectStreamException | ClassNotFoundException e) {
            // Every kind of malformed stream (corrupted, a class refused, primitive data where
            // an object belongs) refuses this client; only the transport's failures are io.
            return "bad object stream: " + e.getMessage();
        }
    }

    /** The first object says the mode: a Long, 4.6's objects; the String "long", longs alone. */
    private String exchange(ObjectInputStream in, ObjectOutputStream out)
            throws IOException, ClassNotFoundException {
        Object first = read(in);
        if (ObjectWire.LONG_MODE.equals(first)) {
            return longs(in, out);
        }
        if (!(first instanceof Long)) {
            return "expected a Long or the String \"" + ObjectWire.LONG_MODE + "\", got "
                    + ObjectDrive.describe(first);
        }
        return objects(first, in, out);
    }

    /** --payload long: each Long echoed alone; END answered with 0 corrupted. */
    private String longs(ObjectInputStream in, ObjectOutputStream out)
            throws IOException, ClassNotFoundException {
        while (true) {
            Object next = read(in);
            if (!(next instanceof Long stamp)) {
                return "expected a Long, got " + ObjectDrive.describe(next);
            }
            if (stamp == ObjectWire.END) {
                out.writeObject(0L);
                out.flush();
                return null;
            }
            out.writeObject(stamp);
            out.reset();
            out.flush();
        }
    }

    /** --payload object: a Long and a byte[] each way; first is the first round trip's Long. */
    private String objects(Object first, ObjectInputStream in, ObjectOutputStream out)
            throws IOException, ClassNotFoundException {
        long corrupted = 0;
        for (long sequence = 0; ; sequence++) {
            if (sequence > 0) {
                first = read(in);
            }
            if (!(first instanceof Long stamp)) {
                return "expected a Long, got " + ObjectDrive.describe(first);
            }
            if (stamp == ObjectWire.END) {
                out.writeObject(corrupted);
                out.flush();
                return null;
            }
            Object second = read(in);
            if (!(second instanceof byte[] request)) {
                return "expected a byte[], got " + ObjectDrive.describe(second);
            }
            out.writeObject(stamp);
            out.writeObject(answer(request.length, sequence));
            out.reset();
            out.flush();
            if (!intact(request, sequence)) {
                corrupted++;
            }
        }
    }

    /**
     * readObject, whose hostile input may also end in a RuntimeException, which would take the
     * whole server down: JDK 25 throws NullPointerException (Array.newInstance) for a TC_ARRAY
     * whose class descriptor names no array class (found by ServerFuzzTest#connection).
     */
    private static Object read(ObjectInputStream in) throws IOException, ClassNotFoundException {
        try {
            return in.readObject();
        } catch (RuntimeException e) {
            throw (StreamCorruptedException) new StreamCorruptedException(
                    "unreadable object: " + PeerException.describe(e)).initCause(e);
        }
    }

    /** payload(seed, 2, sequence, length), made once per length and stamped per round trip. */
    private byte[] answer(int length, long sequence) {
        if (response == null || response.length() != length) {
            response = new ObjectWire.Stamped(seed, Payload.RESPONSE_STREAM, length);
        }
        byte[] bytes = response.at(sequence);
        if (flipResponseByte && length > 0) {
            // A copy: the kept array is stamped again next time, which rewrites only 8 bytes.
            bytes = bytes.clone();
            bytes[length - 1] ^= 0x01;
        }
        return bytes;
    }

    private boolean intact(byte[] request, long sequence) {
        if (expected == null || expected.length() != request.length) {
            expected = new ObjectWire.Stamped(seed, Payload.REQUEST_STREAM, request.length);
        }
        return Arrays.equals(request, expected.at(sequence));
    }
}
