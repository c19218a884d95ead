package dev.ipclab.peer.burst;

import dev.ipclab.peer.frame.ExpectedPayload;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.Payload;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One burst connection (PROTOCOL.md 11.4): read one REQUEST, send its RESPONSE, close, then
 * compare the request payload. Frames of a size are built once and shared by every task: each
 * connection copies the response base into a buffer of its own and stamps it, so concurrent
 * tasks never write into each other's frame. The default sizes are built before READY.
 */
final class BurstExchange implements ConnectionService {
    static final int DEFAULT_REQUEST = 1000;
    static final int DEFAULT_RESPONSE = 8;
    static final int FIRST_CHUNK = Frame.HEADER_SIZE + 16 * 1024;

    /** A rejected header (the reason is on stderr). */
    static final class Rejected extends IOException {
        private static final long serialVersionUID = 1L;

        Rejected(String reason) {
            super(reason);
        }
    }

    private final long seed;
    private final PrintStream diagnostics;
    private final Map<Integer, ByteBuffer> responses = new ConcurrentHashMap<>();
    private final Map<Integer, ExpectedPayload> requests = new ConcurrentHashMap<>();

    BurstExchange(long seed, PrintStream diagnostics) {
        this.seed = seed;
        this.diagnostics = diagnostics;
        responseBase(DEFAULT_RESPONSE);
        expected(DEFAULT_REQUEST);
    }

    /** Serves the connection on a blocking channel and records transfer, total and error. */
    @Override
    public void serve(SocketChannel channel, PhaseRecord record) {
        String failure = null;
        try (channel) {
            long start = System.nanoTime();
            ByteBuffer request = readRequest(channel);
            ByteBuffer response = response(request);
            while (response.hasRemaining()) {
                channel.write(response);
            }
            record.transfer = System.nanoTime() - start;
            failure = check(request);
        } catch (IOException e) {
            failure = kind(e);
        }
        record.finish(failure);
    }

    private ByteBuffer readRequest(SocketChannel channel) throws IOException {
        ByteBuffer header = readFully(channel, newBuffer(Frame.HEADER_SIZE));
        int size = Frame.HEADER_SIZE + requestLength(header);
        ByteBuffer request = readFully(channel, started(header, size));
        while (request.capacity() < size) {
            request = readFully(channel, grown(request, size));
        }
        return request;
    }

    /**
     * The buffer a request of {@code size} bytes is read into after its header: the first 16 KiB
     * of it (a burst's requests are about 1000 B; 64 KiB a connection, on the heap of a JVM
     * that grows it in steps, took the test of a hundred claims over its 16 MiB). It grows
     * ({@link #grown}) only once full of received bytes, never to a length the header merely
     * claims: a hundred connections claiming 128 MiB each and then silent cost a few MiB.
     */
    static ByteBuffer started(ByteBuffer header, int size) {
        return newBuffer(Math.min(size, FIRST_CHUNK)).put(header.flip());
    }

    /** A full buffer's bytes in one twice as large, at most {@code size}, positioned after them. */
    static ByteBuffer grown(ByteBuffer full, int size) {
        return newBuffer((int) Math.min(size, 2L * full.capacity())).put(full.flip());
    }

    private static ByteBuffer readFully(SocketChannel channel, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            if (channel.read(buf) < 0) {
                throw new EOFException("the client closed before a whole request");
            }
        }
        return buf;
    }

    /** Section 2's header checks; only a REQUEST is accepted. @return its length */
    int requestLength(ByteBuffer header) throws Rejected {
        String problem = Frame.requestProblem(header, 0);
        if (problem == null && Frame.kind(header, 0) != Frame.REQUEST) {
            problem = "unexpected kind";
        }
        if (problem == null && Frame.flags(header, 0) != 0) {
            problem = "bad flags"; // NO_REPLY belongs to a one-way short only
        }
        if (problem != null) {
            diagnostics.println("ipclab-peer: rejected frame: " + problem);
            throw new Rejected(problem);
        }
        return (int) Frame.length(header, 0);
    }

    /** The RESPONSE to a whole REQUEST frame, position 0. */
    ByteBuffer response(ByteBuffer request) {
        int wanted = (int) Frame.wanted(request, 0);
        int length = (int) Frame.length(request, 0);
        long sequence = Frame.sequence(request, 0);
        ByteBuffer frame = newBuffer(Frame.HEADER_SIZE + wanted).put(responseBase(wanted).duplicate());
        frame.putLong(Frame.OFF_SEQUENCE, sequence);
        frame.putInt(Frame.OFF_WANTED, length);
        Payload.stamp(frame, Frame.HEADER_SIZE, wanted, Payload.head(seed, Payload.RESPONSE_STREAM),
                sequence);
        return frame.flip();
    }

    /** @return null if the request payload is the expected one, else payload-mismatch */
    String check(ByteBuffer request) {
        int length = (int) Frame.length(request, 0);
        boolean intact = expected(length).bind(request, Frame.HEADER_SIZE)
                .firstMismatch(Frame.sequence(request, 0)) < 0;
        return intact ? null : "payload-mismatch";
    }

    /** The phases file's error kind of a failed exchange. */
    static String kind(IOException e) {
        if (e instanceof Rejected) {
            return "protocol";
        }
        if (e instanceof EOFException) {
            return "eof";
        }
        String message = String.valueOf(e.getMessage());
        return message.contains("reset") || message.contains("Broken pipe") ? "reset" : "io";
    }

    private ByteBuffer responseBase(int wanted) {
        return responses.computeIfAbsent(wanted, w -> {
            ByteBuffer base = newBuffer(Frame.HEADER_SIZE + w);
            Frame.writeHeader(base, Frame.RESPONSE, 0, w, 0);
            Payload.fillBase(base, Frame.HEADER_SIZE, seed, Payload.RESPONSE_STREAM, w);
            return base.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
        });
    }

    private ExpectedPayload expected(int length) {
        return requests.computeIfAbsent(length,
                l -> new ExpectedPayload(seed, Payload.REQUEST_STREAM, l));
    }

    private static ByteBuffer newBuffer(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }
}
