package dev.ipclab.peer.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Test;

/** tcp's short dialer (section 11.2). */
class TcpTest {
    /** Connection i comes from 127.1.b.c (section 11.2), so TIME_WAIT spreads over addresses. */
    @Test
    void shortTcpRotatesItsSourceAddress() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            InetSocketAddress bound = (InetSocketAddress) listener.getLocalAddress();
            try (Dial dial = Tcp.dialer("127.0.0.1:" + bound.getPort(), true)) {
                for (int i = 0; i < 3; i++) {
                    try (ClientLink link = dial.dial(); SocketChannel accepted = listener.accept()) {
                        InetSocketAddress from = (InetSocketAddress) accepted.getRemoteAddress();
                        assertEquals("127.1.0." + i, from.getAddress().getHostAddress());
                    }
                }
            }
        }
        assertEquals("127.1.0.254", Tcp.source(254).getAddress().getHostAddress());
        assertEquals("127.1.1.0", Tcp.source(255).getAddress().getHostAddress());
        assertEquals("127.1.255.254", Tcp.source(65279).getAddress().getHostAddress());
        assertEquals("127.1.0.0", Tcp.source(65280).getAddress().getHostAddress());
    }
}
