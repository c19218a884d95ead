package dev.ipclab.peer.server;

import dev.ipclab.peer.transport.ChannelConnection;
import dev.ipclab.peer.transport.StreamConnection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/** A real loopback tcp connection: the test plays the client, the code under test the server. */
public final class Loopback implements AutoCloseable {
    final SocketChannel client;
    final SocketChannel server;

    private Loopback(SocketChannel client, SocketChannel server) {
        this.client = client;
        this.server = server;
    }

    static Loopback open() throws IOException {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SocketChannel client = SocketChannel.open(listener.getLocalAddress());
            return new Loopback(client, listener.accept());
        }
    }

    /** The server's side as the handler sees it. */
    StreamConnection serverConnection() {
        return new ChannelConnection(server, server);
    }

    void send(byte[] bytes) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
            client.write(buf);
        }
    }

    /** Everything the server sent until it closed its side. */
    byte[] receiveAll() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        while (client.read(buf.clear()) >= 0) {
            out.write(buf.array(), 0, buf.position());
        }
        return out.toByteArray();
    }

    @Override
    public void close() throws IOException {
        ChannelConnection.closeAll(client, server);
    }

    /** Collects what code under test writes to its diagnostics stream. */
    public static final class Diagnostics {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        public final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        public String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }
}
