package dev.ipclab.peer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;

/** udp: one datagram per frame; payloads up to 65483 bytes (65507 - 24). */
final class Udp {
    static final int MAX_DATAGRAM = 65_507;
    static final int MAX_PAYLOAD = MAX_DATAGRAM - Frame.HEADER_SIZE;

    private Udp() {}

    static DatagramChannel bind(String endpoint) throws IOException {
        InetSocketAddress address = Endpoints.hostPort(endpoint).resolve();
        DatagramChannel channel = DatagramChannel.open(Tcp.family(address));
        try {
            return channel.bind(address);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    static ClientLink connect(String endpoint, long ioTimeoutNanos) throws IOException {
        InetSocketAddress address = Endpoints.hostPort(endpoint).resolve();
        DatagramChannel channel = DatagramChannel.open(Tcp.family(address));
        try {
            // Connected: plain send/recv calls, and datagrams from anyone else are filtered out.
            channel.connect(address);
            return new DatagramLink(channel, ioTimeoutNanos);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }
}
