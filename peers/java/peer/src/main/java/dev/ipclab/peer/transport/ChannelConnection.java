package dev.ipclab.peer.transport;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/** A stream connection over NIO channels: the same socket twice, or two pipe/FIFO ends. */
public final class ChannelConnection implements StreamConnection {
    private final ReadableByteChannel in;
    private final WritableByteChannel out;

    public ChannelConnection(ReadableByteChannel in, WritableByteChannel out) {
        this.in = in;
        this.out = out;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return in.read(dst);
    }

    @Override
    public void write(ByteBuffer src) throws IOException {
        // Blocking channels write everything at once; the loop covers a signal-shortened write.
        while (src.hasRemaining()) {
            out.write(src);
        }
    }

    @Override
    public void close() throws IOException {
        closeAll(in, out);
    }

    /** Closes every resource even if an earlier one fails, then reports the first failure. */
    public static void closeAll(Closeable... resources) throws IOException {
        IOException first = null;
        for (Closeable resource : resources) {
            try {
                resource.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
