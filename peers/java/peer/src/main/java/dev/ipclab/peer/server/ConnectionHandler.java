package dev.ipclab.peer.server;

import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.objects.ObjectServer;
import dev.ipclab.peer.objects.ObjectWire;
import dev.ipclab.peer.transport.FrameRejectedException;
import dev.ipclab.peer.transport.StreamConnection;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;

/**
 * Serves stream clients one after another: REQUEST -> RESPONSE (none for a one-way REQUEST), DATA
 * counted, MARK -> MARK_ACK, END -> END_ACK, until each closes. The corrupted-request and
 * received-request counts run across connections until END (section 11.2: a short client sends
 * END over a connection of its own).
 */
final class ConnectionHandler {
    private final Responder responder;
    private final FrameReader reader = new FrameReader();
    private final PrintStream diagnostics;
    private final ObjectServer objects;
    private long corrupted;
    private long received;

    ConnectionHandler(Responder responder, PrintStream diagnostics) {
        this.responder = responder;
        this.diagnostics = diagnostics;
        this.objects = new ObjectServer(responder.seed(), responder.flipsResponseByte());
    }

    /**
     * Serves the connection until the client closes it or sends a malformed frame.
     *
     * @return null after a normal close, else the rejection reason (already reported on stderr)
     * @throws IOException when the transport fails (reset, broken pipe)
     */
    String serve(StreamConnection connection) throws IOException {
        reader.reset();
        Responder.Reply reply = connection::write;
        while (true) {
            FrameReader.Status status;
            try {
                status = reader.next(connection);
            } catch (FrameRejectedException e) {
                diagnostics.println("ipclab-peer: rejected frame: " + e.reason());
                return e.reason();
            }
            switch (status) {
                case CLOSED -> {
                    return null;
                }
                case REJECTED -> {
                    // At any frame boundary, not only a connection's first: a message channel's
                    // clients share one endless stream (section 4.6: --payload object).
                    if (ObjectWire.startsObjects(reader.frame(), reader.start(),
                            reader.unread().remaining())) {
                        return serveObjects(connection);
                    }
                    diagnostics.println("ipclab-peer: rejected frame: " + reader.rejection());
                    return reader.rejection();
                }
                case FRAME -> answer(reply);
            }
            reader.consume();
        }
    }

    /** A client that began with Java serialization's stream header: the object benchmark. */
    private String serveObjects(StreamConnection connection) throws IOException {
        String refusal = objects.serve(reader.unread(), connection);
        if (refusal != null) {
            diagnostics.println("ipclab-peer: rejected object stream: " + refusal);
        }
        return refusal;
    }

    private void answer(Responder.Reply reply) throws IOException {
        ByteBuffer frame = reader.frame();
        int at = reader.start();
        byte kind = Frame.kind(frame, at);
        if (kind == Frame.END) {
            responder.answer(frame, at, reply, corrupted, received);
            corrupted = 0;
            received = 0;
        } else {
            if (kind == Frame.REQUEST) {
                received++;
            }
            corrupted += responder.answer(frame, at, reply, 0, 0);
        }
    }

    /** The receive buffer's size, so tests can see that no claimed length was allocated. */
    int receiveCapacity() {
        return reader.capacity();
    }
}
