package dev.ipclab.peer.transport;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/** A client link over a stream: a frame is complete once all its bytes have arrived. */
final class StreamLink implements ClientLink {
    private final StreamConnection connection;

    StreamLink(StreamConnection connection) {
        this.connection = connection;
    }

    @Override
    public void send(ByteBuffer frame) throws IOException {
        connection.write(frame);
    }

    @Override
    public int receive(ByteBuffer dst, int frameSize) throws IOException {
        dst.clear().limit(frameSize);
        // One read asks for the whole remaining frame, so large frames need few calls.
        while (dst.hasRemaining()) {
            if (connection.read(dst) < 0) {
                throw new EOFException("end of stream after " + dst.position() + " of "
                        + frameSize + " bytes of a frame");
            }
        }
        return frameSize;
    }

    @Override
    public int receiveCapacity(int frameSize) {
        return frameSize;
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }
}
