package dev.ipclab.peer.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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
    }

    /**
     * --source one (contract 6, the blog's client): no bind, every connection from 127.0.0.1
     * and an ephemeral port of the kernel's choice; the socket is still made by prepare.
     */
    @Test
    void sourceOneLeavesTheSourceToTheKernel() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            InetSocketAddress bound = (InetSocketAddress) listener.getLocalAddress();
            java.util.Set<Integer> ports = new java.util.HashSet<>();
            try (Dial dial = Tcp.dialer("127.0.0.1:" + bound.getPort(), true, false)) {
                for (int i = 0; i < 3; i++) {
                    dial.prepare();
                    try (ClientLink link = dial.dial(); SocketChannel accepted = listener.accept()) {
                        InetSocketAddress from = (InetSocketAddress) accepted.getRemoteAddress();
                        assertEquals("127.0.0.1", from.getAddress().getHostAddress());
                        ports.add(from.getPort());
                    }
                }
            }
            assertEquals(3, ports.size(), "a port per connection: " + ports);
        }
    }

    /**
     * Section 11.2 since contract 4: prepare makes and binds the socket without connecting (so
     * the sample's clock can start after it), dial connects that very socket.
     */
    @Test
    void prepareBindsBeforeDialConnects() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
            listener.configureBlocking(false);
            InetSocketAddress bound = (InetSocketAddress) listener.getLocalAddress();
            int[] opened = new int[1];
            Dial dial = new PreparedDial(bound, index -> {
                opened[0]++;
                SocketChannel channel = SocketChannel.open();
                channel.bind(Tcp.source(index));
                return channel;
            });
            try (dial) {
                dial.prepare();
                dial.prepare();
                assertEquals(1, opened[0], "one socket per connection");
                assertNull(listener.accept(), "prepare must not connect");
                try (ClientLink link = dial.dial()) {
                    assertEquals(1, opened[0], "dial connects the prepared socket");
                    SocketChannel accepted = awaitAccept(listener);
                    assertEquals("127.1.0.0", ((InetSocketAddress) accepted.getRemoteAddress())
                            .getAddress().getHostAddress());
                    accepted.close();
                }
                try (ClientLink link = dial.dial()) {
                    assertEquals(2, opened[0], "dial prepares when nothing is prepared");
                    awaitAccept(listener).close();
                }
                dial.prepare();
            }
            assertNull(listener.accept(), "closing the dialer closes the unused socket");
        }
    }

    private static SocketChannel awaitAccept(ServerSocketChannel listener) throws Exception {
        listener.configureBlocking(true);
        try {
            return listener.accept();
        } finally {
            listener.configureBlocking(false);
        }
    }

    @Test
    void sourcesSkipTheAddressesEndingIn255() throws Exception {
        assertEquals("127.1.0.254", Tcp.source(254).getAddress().getHostAddress());
        assertEquals("127.1.1.0", Tcp.source(255).getAddress().getHostAddress());
        assertEquals("127.1.255.254", Tcp.source(65279).getAddress().getHostAddress());
        assertEquals("127.1.0.0", Tcp.source(65280).getAddress().getHostAddress());
    }
}
