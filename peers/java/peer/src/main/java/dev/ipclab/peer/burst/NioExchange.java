package dev.ipclab.peer.burst;

import dev.ipclab.peer.server.ConnectionHandler;
import dev.ipclab.peer.transport.StreamConnection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * A load server's connection in the {@code nio} loop (PROTOCOL.md 11.5.1): the rr server's own
 * exchange ({@link ConnectionHandler#serveAvailable}) on a non-blocking channel. Frames are
 * answered as their bytes arrive; an answer the socket does not take whole is finished when the
 * socket is writable again, and only then is the next frame read (its state goes back to "reading
 * a header" after each RESPONSE).
 */
final class NioExchange implements NioModel.Step, StreamConnection {
    private final BurstServer server;
    private final SocketChannel channel;
    private final PhaseRecord record;
    private final ConnectionHandler handler;
    private final long start = System.nanoTime();
    /** An answer not yet written whole; null when none is. */
    private ByteBuffer pending;

    NioExchange(BurstServer server, SocketChannel channel, PhaseRecord record) {
        this.server = server;
        this.channel = channel;
        this.record = record;
        this.handler = ConnectionHandler.forExchange(server.seed(), server.diagnostics(), true);
        try {
            LoadExchange.configure(channel, server.options().nodelay());
        } catch (IOException e) {
            // A socket that cannot take the option is already broken: its first read ends it.
        }
    }

    @Override
    public void advance(SelectionKey key) {
        try {
            if (pending != null) {
                channel.write(pending);
                if (pending.hasRemaining()) {
                    return;
                }
                pending = null;
                key.interestOps(SelectionKey.OP_READ);
            }
            ConnectionHandler.Progress progress = handler.serveAvailable(this, () -> pending != null);
            if (pending != null) {
                key.interestOps(SelectionKey.OP_WRITE);
            } else if (progress != ConnectionHandler.Progress.WAIT) {
                end(progress == ConnectionHandler.Progress.REJECTED ? "protocol" : null);
            }
        } catch (IOException e) {
            end(BurstExchange.kind(e));
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return channel.read(dst);
    }

    /** Writes what the socket takes now; the rest waits for OP_WRITE. */
    @Override
    public void write(ByteBuffer src) throws IOException {
        channel.write(src);
        if (src.hasRemaining()) {
            pending = src;
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    private void end(String failure) {
        try {
            channel.close();
        } catch (IOException e) {
            // Closing a socket we are done with: nothing left to lose.
        }
        record.transfer = System.nanoTime() - start;
        record.finish(failure);
        server.ended();
    }
}
