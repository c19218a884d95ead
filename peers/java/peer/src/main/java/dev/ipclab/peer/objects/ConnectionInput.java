package dev.ipclab.peer.objects;

import dev.ipclab.peer.transport.StreamConnection;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * A server connection as an InputStream: first the bytes the frame reader had already received
 * (copied once, they are few), then the connection's own reads, one read call per read.
 */
final class ConnectionInput extends InputStream {
    private final ByteBuffer pending;
    private final StreamConnection connection;
    private final byte[] one = new byte[1];

    ConnectionInput(ByteBuffer received, StreamConnection connection) {
        this.pending = ByteBuffer.allocate(received.remaining()).put(received).flip();
        this.connection = connection;
    }

    @Override
    public int read() throws IOException {
        return read(one, 0, 1) < 0 ? -1 : Byte.toUnsignedInt(one[0]);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (pending.hasRemaining()) {
            int n = Math.min(len, pending.remaining());
            pending.get(b, off, n);
            return n;
        }
        int n;
        do {
            // A message mechanism's empty message reads as 0 bytes: wait for the next one.
            n = connection.read(ByteBuffer.wrap(b, off, len));
        } while (n == 0);
        return n;
    }
}
