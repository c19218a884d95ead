package dev.ipclab.peer;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/** tcp: a loopback (or any given host) stream socket with TCP_NODELAY on both sides. */
final class Tcp {
    private Tcp() {}

    static StreamListener listen(String endpoint) throws IOException {
        InetSocketAddress address = Endpoints.hostPort(endpoint).resolve();
        ServerSocketChannel server = ServerSocketChannel.open(family(address));
        try {
            server.bind(address);
            InetSocketAddress bound = (InetSocketAddress) server.getLocalAddress();
            return new SocketListener(server, Endpoints.format(bound), null);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    static ClientLink connect(String endpoint) throws IOException {
        InetSocketAddress address = Endpoints.hostPort(endpoint).resolve();
        SocketChannel channel = SocketChannel.open(family(address));
        try {
            configure(channel);
            channel.connect(address);
            return new StreamLink(new ChannelConnection(channel, channel));
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Small frames must leave at once, not wait for Nagle's algorithm. */
    static void configure(SocketChannel channel) throws IOException {
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    static StandardProtocolFamily family(InetSocketAddress address) throws IOException {
        if (address.isUnresolved()) {
            throw new IOException("cannot resolve host " + address.getHostString());
        }
        return address.getAddress() instanceof Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
    }
}
