package dev.ipclab.peer;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;

/** Serves one stream client: REQUEST -> RESPONSE, END -> END_ACK, until it closes. */
final class ConnectionHandler {
    private final Responder responder;
    private final FrameReader reader = new FrameReader();
    private final PrintStream diagnostics;

    ConnectionHandler(Responder responder, PrintStream diagnostics) {
        this.responder = responder;
        this.diagnostics = diagnostics;
    }

    /**
     * Serves the connection until the client closes it or sends a malformed frame.
     *
     * @return null after a normal close, else the rejection reason (already reported on stderr)
     * @throws IOException when the transport fails (reset, broken pipe)
     */
    String serve(StreamConnection connection) throws IOException {
        reader.reset();
        long corrupted = 0;
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
                    diagnostics.println("ipclab-peer: rejected frame: " + reader.rejection());
                    return reader.rejection();
                }
                case FRAME -> corrupted = answer(connection, reader.frame(), corrupted);
            }
            reader.consume();
        }
    }

    /** @return the corrupted-request count after this frame */
    private long answer(StreamConnection connection, ByteBuffer frame, long corrupted)
            throws IOException {
        long sequence = Frame.sequence(frame);
        if (Frame.kind(frame) == Frame.END) {
            connection.write(responder.endAck(sequence, corrupted));
            return 0;
        }
        int length = (int) Frame.length(frame);
        connection.write(responder.response(sequence, (int) Frame.wanted(frame), length));
        responder.sent();
        // Checked only now, after the response has left: the check costs the round trip nothing.
        return responder.intact(frame, length, sequence) ? corrupted : corrupted + 1;
    }

    /** The receive buffer's size, so tests can see that no claimed length was allocated. */
    int receiveCapacity() {
        return reader.capacity();
    }
}
