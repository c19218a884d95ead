package dev.ipclab.peer.objects;

import dev.ipclab.peer.transport.StreamConnection;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/** A server connection as an OutputStream: each write is one write of the connection. */
final class ConnectionOutput extends OutputStream {
    private final StreamConnection connection;

    ConnectionOutput(StreamConnection connection) {
        this.connection = connection;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len > 0) {
            connection.write(ByteBuffer.wrap(b, off, len));
        }
    }
}
