package dev.ipclab.peer.transport;

import dev.ipclab.peer.frame.Frame;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/** udp: one datagram per frame; payloads up to 65483 bytes (65507 - 24). */
public final class Udp {
    public static final int MAX_DATAGRAM = 65_507;
    public static final int MAX_PAYLOAD = MAX_DATAGRAM - Frame.HEADER_SIZE;

    private Udp() {}

    public static DatagramPort bind(String endpoint) throws IOException {
        return new Port(Endpoints.hostPort(endpoint).resolve());
    }

    public static ClientLink connect(String endpoint, long ioTimeoutNanos) throws IOException {
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

    /** The server's socket; closing the channel is what wakes a blocked receive. */
    private static final class Port implements DatagramPort {
        private final DatagramChannel channel;
        private SocketAddress source;

        Port(InetSocketAddress address) throws IOException {
            channel = DatagramChannel.open(Tcp.family(address));
            try {
                channel.bind(address);
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
        }

        @Override
        public String endpoint() {
            try {
                return Endpoints.format((InetSocketAddress) channel.getLocalAddress());
            } catch (IOException e) {
                throw new IllegalStateException("a bound channel has a local address", e);
            }
        }

        @Override
        public int maxPayload() {
            return MAX_PAYLOAD;
        }

        @Override
        public int maxMessage() {
            return MAX_DATAGRAM;
        }

        @Override
        public boolean lossy() {
            return true;
        }

        @Override
        public int receiveCapacity() {
            return MAX_DATAGRAM + 1;
        }

        @Override
        public int receive(ByteBuffer dst) throws IOException {
            source = channel.receive(dst);
            return dst.position();
        }

        @Override
        public Object source() {
            return source;
        }

        @Override
        public void reply(ByteBuffer frame) throws IOException {
            channel.send(frame, source);
        }

        @Override
        public boolean isOpen() {
            return channel.isOpen();
        }

        @Override
        public void wake() throws IOException {
            channel.close();
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
