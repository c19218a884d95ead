package dev.ipclab.peer.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A Unix SocketChannel as the java.net.Socket Jedis takes (redis-uds, 4.10): bytes both ways, a
 * read past its timeout a SocketTimeoutException, the state Jedis asks, and close from another
 * thread; and the endpoint grammar of 4.10.
 */
class ChannelSocketTest {
    @TempDir
    Path dir;

    /** A listening Unix socket at name, a ChannelSocket connected to it and the accepted end. */
    private record Connected(ServerSocketChannel server, ChannelSocket socket, SocketChannel peer)
            implements AutoCloseable {
        static Connected at(Path path, int timeoutMillis) throws Exception {
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(path));
            ChannelSocket socket = ChannelSocket.connect(path, timeoutMillis);
            return new Connected(server, socket, server.accept());
        }

        @Override
        public void close() throws Exception {
            socket.close();
            peer.close();
            server.close();
        }
    }

    @Test
    void carriesBytesTimesOutAReadAndCloses() throws Exception {
        try (Connected c = Connected.at(dir.resolve("s.sock"), 200)) {
            ChannelSocket socket = c.socket();
            assertTrue(socket.isConnected() && socket.isBound() && !socket.isClosed());
            assertEquals(200, socket.getSoTimeout());
            socket.getOutputStream().write(new byte[] {1, 2, 3});
            ByteBuffer got = ByteBuffer.allocate(3);
            while (got.hasRemaining()) {
                c.peer().read(got);
            }
            assertArrayEquals(new byte[] {1, 2, 3}, got.array());
            c.peer().write(ByteBuffer.wrap(new byte[] {9}));
            assertEquals(9, socket.getInputStream().read());
            // Nothing comes: the watchdog closes the channel under the read.
            long start = System.nanoTime();
            assertThrows(SocketTimeoutException.class, () -> assertTimeoutPreemptively(
                    Duration.ofSeconds(10), () -> socket.getInputStream().read(new byte[8])));
            assertTrue(System.nanoTime() - start >= 200_000_000L);
            assertTrue(socket.isClosed());
        }
    }

    @Test
    void withoutATimeoutACloseFromAnotherThreadEndsTheRead() throws Exception {
        try (Connected c = Connected.at(dir.resolve("t.sock"), 0)) {
            ChannelSocket socket = c.socket();
            assertEquals(0, socket.getSoTimeout());
            // Before the read or during it, the read fails: closed, or closed under it.
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    socket.close();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            assertThrows(java.io.IOException.class, () -> assertTimeoutPreemptively(
                    Duration.ofSeconds(10), () -> socket.getInputStream().read(new byte[8])));
            assertFalse(socket.isConnected() && !socket.isClosed());
        }
    }

    @ParameterizedTest
    @CsvSource({"redis://127.0.0.1:6379/ipclab-1-x:c0001,true,127.0.0.1,6379,ipclab-1-x:c0001",
        "redis://[::1]:7/a.b_c-d,true,::1,7,a.b_c-d", "unix:///run/r#1.sock#n,false,,0,n"})
    void parsesTheEndpointsOf410(String text, boolean tcp, String host, int port, String name) {
        RedisEndpoint e = RedisEndpoint.parse(text, tcp);
        assertEquals(name, e.name());
        assertEquals(text, e.text());
        if (tcp) {
            assertEquals(host, e.server().host());
            assertEquals(port, e.server().port());
            assertNull(e.socket());
        } else {
            assertEquals("/run/r#1.sock", e.socket());
            assertNull(e.server());
        }
        assertEquals(name + ":requests", new String(e.requests(), StandardCharsets.US_ASCII));
    }
}
