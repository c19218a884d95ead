package dev.ipclab.peer.transport;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.SocketChannel;

/**
 * short over a socket (tcp, uds; PROTOCOL.md section 11.2): {@link #prepare()} makes connection
 * i's socket (tcp: with its source bind) before the sample's clock, {@link #dial()} connects it.
 * The client dials from one thread, one connection at a time.
 */
final class PreparedDial implements Dial {
    /** Makes connection i's socket, unconnected. */
    interface Sockets {
        SocketChannel open(int index) throws IOException;
    }

    private final SocketAddress address;
    private final Sockets sockets;
    private int next;
    private SocketChannel prepared;

    PreparedDial(SocketAddress address, Sockets sockets) {
        this.address = address;
        this.sockets = sockets;
    }

    @Override
    public void prepare() throws IOException {
        if (prepared == null) {
            prepared = sockets.open(next++);
        }
    }

    @Override
    public ClientLink dial() throws IOException {
        prepare();
        SocketChannel channel = prepared;
        prepared = null;
        try {
            channel.connect(address);
            return new StreamLink(new ChannelConnection(channel, channel));
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** A socket prepared for a connection that never came (a failed run) is closed. */
    @Override
    public void close() throws IOException {
        if (prepared != null) {
            SocketChannel channel = prepared;
            prepared = null;
            channel.close();
        }
    }
}
