package dev.ipclab.peer.burst;

import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.server.ConnectionHandler;
import dev.ipclab.peer.transport.ChannelConnection;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A load server's connection (PROTOCOL.md 11.5.1) on a blocking channel: the rr server's own
 * per-connection exchange ({@link ConnectionHandler}, one per connection so that concurrent
 * tasks share no buffer) until END and the client's close. The server keeps the open channels so
 * that closing it ends the tasks still blocked in a read.
 */
final class LoadExchange implements ConnectionService {
    private final long seed;
    private final boolean nodelay;
    private final PrintStream diagnostics;
    private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    LoadExchange(long seed, boolean nodelay, PrintStream diagnostics) {
        this.seed = seed;
        this.nodelay = nodelay;
        this.diagnostics = diagnostics;
    }

    @Override
    public void serve(SocketChannel channel, PhaseRecord record) {
        String failure = null;
        open.add(channel);
        try (channel) {
            if (closed) {
                return; // accepted as the server closed: close() may have missed it
            }
            configure(channel, nodelay);
            long start = System.nanoTime();
            String rejection = ConnectionHandler.forExchange(seed, diagnostics, false)
                    .serve(new ChannelConnection(channel, channel));
            record.transfer = System.nanoTime() - start;
            failure = rejection == null ? null : "protocol";
        } catch (IOException e) {
            failure = BurstExchange.kind(e);
            if (!closed) {
                diagnostics.println("ipclab-peer: io: client connection failed: "
                        + PeerException.describe(e));
            }
        } finally {
            open.remove(channel);
        }
        record.finish(failure);
    }

    /** tcp: small frames leave at once unless --nodelay off (section 1). */
    static void configure(SocketChannel channel, boolean nodelay) throws IOException {
        if (channel.getLocalAddress() instanceof java.net.InetSocketAddress) {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, nodelay);
        }
    }

    @Override
    public void close() {
        closed = true;
        for (SocketChannel channel : open) {
            try {
                channel.close();
            } catch (IOException e) {
                // Its task ends either way; nothing is lost by a failing close.
            }
        }
    }
}
