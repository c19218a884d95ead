package dev.ipclab.peer.server;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.objects.ObjectServer;
import dev.ipclab.peer.objects.ObjectWire;
import dev.ipclab.peer.transport.FrameRejectedException;
import dev.ipclab.peer.transport.StreamConnection;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;

/**
 * Serves stream clients one after another: REQUEST -> RESPONSE (none for a one-way REQUEST),
 * MARK -> MARK_ACK and then the bare messages it announced (section 11.1), END -> END_ACK, until
 * each closes. The corrupted-request and received-request counts run across connections until
 * END (section 11.2: a short client sends END over a connection of its own).
 */
public final class ConnectionHandler {
    /** Where a non-blocking connection stands after {@link #serveAvailable}. */
    public enum Progress { WAIT, CLOSED, REJECTED }

    /** A stream server's largest message: byte streams, channels and files carry any frame's. */
    private static final int MAX_MESSAGE = Frame.MAX_PAYLOAD;

    private final Responder responder;
    private final FrameReader reader;
    private final PrintStream diagnostics;
    /** A load server's connection (11.5.1): section 2's exchange only, no object streams. */
    private final boolean exchangeOnly;
    private final ObjectServer objects;
    private long corrupted;
    private long received;
    /** The messages the MARK just answered announced. */
    private long announced;

    ConnectionHandler(Responder responder, PrintStream diagnostics) {
        this(responder, diagnostics, 0);
    }

    /** @param readSize --read-size: the most a receive of stream messages asks for (0: all) */
    ConnectionHandler(Responder responder, PrintStream diagnostics, int readSize) {
        this(responder, diagnostics, new FrameReader(readSize), false);
    }

    private ConnectionHandler(Responder responder, PrintStream diagnostics, FrameReader reader,
            boolean exchangeOnly) {
        this.responder = responder;
        this.diagnostics = diagnostics;
        this.reader = reader;
        this.exchangeOnly = exchangeOnly;
        this.objects = new ObjectServer(responder.seed(), responder.flipsResponseByte());
    }

    /**
     * One connection of a load server (11.5.1): REQUEST -> RESPONSE, END -> END_ACK with this
     * connection's corrupted count; anything else is rejected. One handler per connection, so
     * concurrent connections share no buffer.
     *
     * @param nonBlocking served by an event loop through {@link #serveAvailable}
     */
    public static ConnectionHandler forExchange(long seed, PrintStream diagnostics,
            boolean nonBlocking) {
        return new ConnectionHandler(new Responder(seed, Fault.NONE), diagnostics,
                new FrameReader(true, nonBlocking), true);
    }

    /**
     * An event loop's step on a non-blocking connection: answers every frame already received,
     * until more bytes are needed or {@code writing} says an answer is still going out (then
     * the caller finishes that write and calls again; the answer's buffer stays untouched until
     * the next frame is answered).
     *
     * @throws IOException when the transport fails
     */
    public Progress serveAvailable(StreamConnection connection, BooleanSupplier writing)
            throws IOException {
        Responder.Reply reply = connection::write;
        while (!writing.getAsBoolean()) {
            FrameReader.Status status = reader.next(connection);
            switch (status) {
                case PARTIAL -> {
                    return Progress.WAIT;
                }
                case CLOSED -> {
                    return Progress.CLOSED;
                }
                case REJECTED -> {
                    rejected(reader.rejection());
                    return Progress.REJECTED;
                }
                default -> answer(reply);
            }
            reader.consume();
        }
        return Progress.WAIT;
    }

    /**
     * Serves the connection until the client closes it or sends a malformed frame.
     *
     * @return null after a normal close, else the rejection reason (already reported on stderr)
     * @throws IOException when the transport fails (reset, broken pipe)
     */
    public String serve(StreamConnection connection) throws IOException {
        reader.reset();
        announced = 0;
        Responder.Reply reply = connection::write;
        try {
            while (true) {
                FrameReader.Status status = reader.next(connection);
                if (status == FrameReader.Status.CLOSED) {
                    return null;
                }
                if (status == FrameReader.Status.REJECTED && !exchangeOnly && ObjectWire.startsObjects(
                        reader.frame(), reader.start(), reader.unread().remaining())) {
                    // At any frame boundary, not only a connection's first: a message channel's
                    // clients share one endless stream (section 4.6: --payload object).
                    return serveObjects(connection);
                }
                String problem = status == FrameReader.Status.REJECTED ? reader.rejection()
                        : answer(reply);
                if (problem != null) {
                    return rejected(problem);
                }
                reader.consume();
                if (announced != 0 && !receiveMessages(connection)) {
                    // The MARK promised messages that the end of stream cut short.
                    return rejected("truncated payload");
                }
            }
        } catch (FrameRejectedException e) {
            return rejected(e.reason());
        }
    }

    private String rejected(String reason) {
        diagnostics.println("ipclab-peer: rejected frame: " + reason);
        return reason;
    }

    /** A client that began with Java serialization's stream header: the object benchmark. */
    private String serveObjects(StreamConnection connection) throws IOException {
        String refusal = objects.serve(reader.unread(), connection);
        if (refusal != null) {
            diagnostics.println("ipclab-peer: rejected object stream: " + refusal);
        }
        return refusal;
    }

    /** @return a MARK's rejection reason, or null once the frame is answered */
    private String answer(Responder.Reply reply) throws IOException {
        ByteBuffer frame = reader.frame();
        int at = reader.start();
        byte kind = Frame.kind(frame, at);
        if (kind == Frame.MARK) {
            String problem = Frame.markProblem(frame, at, MAX_MESSAGE);
            if (problem != null) {
                return problem;
            }
            announced = Frame.markCount(frame, at);
            responder.answer(frame, at, reply, 0, 0);
        } else if (kind == Frame.END) {
            responder.answer(frame, at, reply, corrupted, received);
            corrupted = 0;
            received = 0;
        } else {
            received++;
            corrupted += responder.answer(frame, at, reply, 0, 0);
        }
        return null;
    }

    /**
     * The bare messages a MARK announced, each read whole into the reader's buffer and counted
     * where it lies; nothing is sent back.
     *
     * @return false at end of stream before the last of them
     */
    private boolean receiveMessages(StreamConnection connection) throws IOException {
        int size = responder.messageSize();
        connection.expectMessages(size);
        reader.expectMessages(announced, size);
        for (long left = announced; left != 0; left--) {
            if (!reader.nextMessage(connection, size)) {
                return false;
            }
            responder.message(reader.frame(), reader.start(), size);
            reader.consume();
        }
        announced = 0;
        connection.expectMessages(0);
        return true;
    }

    /** The receive buffer's size, so tests can see that no claimed length was allocated. */
    int receiveCapacity() {
        return reader.capacity();
    }
}
