package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UnixDatagramSocketTest {
    @TempDir
    Path dir;

    @Test
    void boundPairExchangesDatagramsAndTheServerAnswersTheSource() throws Exception {
        Path serverPath = dir.resolve("s");
        Path clientPath = dir.resolve("c");
        try (Arena arena = Arena.ofConfined();
                UnixDatagramSocket server = UnixDatagramSocket.open();
                UnixDatagramSocket client = UnixDatagramSocket.open()) {
            server.bind(serverPath, 0600);
            client.bind(clientPath, 0600);
            client.connect(serverPath);
            assertEquals("rw-------", PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(serverPath)));
            MemorySegment buf = arena.allocate(64);
            buf.copyFrom(MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5}));
            client.send(buf, 5);
            UnixSocketAddress from = new UnixSocketAddress();
            MemorySegment in = arena.allocate(64);
            assertEquals(5, server.receiveFrom(in, from));
            assertEquals(clientPath.toString(), from.path());
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, in.asSlice(0, 5).toArray(JAVA_BYTE));
            server.sendTo(in, 3, from);
            assertEquals(3, client.receive(buf));
            // Message boundaries are kept: an empty datagram is a datagram.
            client.send(buf, 0);
            assertEquals(0, server.receiveFrom(in, from));
        } finally {
            UnixDatagramSocket.unlink(serverPath);
            UnixDatagramSocket.unlink(clientPath);
        }
        assertFalse(Files.exists(serverPath));
    }

    @Test
    void aLongerDatagramReportsItsRealSize() throws Exception {
        Path serverPath = dir.resolve("s");
        try (Arena arena = Arena.ofConfined();
                UnixDatagramSocket server = UnixDatagramSocket.open();
                UnixDatagramSocket client = UnixDatagramSocket.open()) {
            server.bind(serverPath, 0600);
            client.connect(serverPath);
            client.send(arena.allocate(1000), 1000);
            assertEquals(1000, server.receive(arena.allocate(10)));
        }
    }

    @Test
    void buffersAreRaisedAndTheLimitIsTheKernels() throws Exception {
        int largest = UnixDatagramSocket.largestDatagram();
        assertTrue(largest > 1024 && largest <= UnixDatagramSocket.KERNEL_DATAGRAM_LIMIT,
                "largest " + largest);
        Path serverPath = dir.resolve("s");
        try (Arena arena = Arena.ofConfined();
                UnixDatagramSocket server = UnixDatagramSocket.open();
                UnixDatagramSocket client = UnixDatagramSocket.open()) {
            int before = client.sendBufferSize();
            assertEquals(largest, client.raiseBuffers());
            assertTrue(client.sendBufferSize() >= before);
            assertTrue(client.receiveBufferSize() > 0);
            server.bind(serverPath, 0600);
            server.raiseBuffers();
            client.connect(serverPath);
            MemorySegment big = arena.allocate(largest + 1);
            client.send(big, largest);
            assertEquals(largest, server.receive(big));
            int bySendBuffer = client.sendBufferSize() - UnixDatagramSocket.SEND_BUFFER_OVERHEAD;
            if (bySendBuffer < UnixDatagramSocket.KERNEL_DATAGRAM_LIMIT) {
                // The send buffer is the limit (wmem_max below 2 MiB): one byte more is refused.
                LinuxIpcException e = assertThrows(LinuxIpcException.class,
                        () -> client.send(big, largest + 1));
                assertEquals(LinuxIpcException.EMSGSIZE, e.errno(), e.getMessage());
            }
        }
    }

    @Test
    void receiveTimeoutReturnsMinusOne() throws Exception {
        Path path = dir.resolve("s");
        try (Arena arena = Arena.ofConfined(); UnixDatagramSocket socket = UnixDatagramSocket.open()) {
            socket.bind(path, 0600);
            socket.setReceiveTimeout(50_000_000L);
            long start = System.nanoTime();
            assertEquals(-1, socket.receive(arena.allocate(8)));
            assertTrue(System.nanoTime() - start >= 40_000_000L);
        }
    }

    @Test
    void shutdownWakesABlockedReceive() throws Exception {
        Path path = dir.resolve("s");
        try (UnixDatagramSocket socket = UnixDatagramSocket.open()) {
            socket.bind(path, 0600);
            CompletableFuture<Long> received = CompletableFuture.supplyAsync(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    return socket.receive(arena.allocate(8));
                } catch (LinuxIpcException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(100);
            assertFalse(received.isDone());
            socket.shutdown();
            assertEquals(0, received.get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void errorsCarryErrno() throws Exception {
        Path path = dir.resolve("s");
        try (UnixDatagramSocket a = UnixDatagramSocket.open();
                UnixDatagramSocket b = UnixDatagramSocket.open()) {
            a.bind(path, 0600);
            assertEquals(LinuxIpcException.EADDRINUSE,
                    assertThrows(LinuxIpcException.class, () -> b.bind(path, 0600)).errno());
            assertEquals(LinuxIpcException.ENOENT, assertThrows(LinuxIpcException.class,
                    () -> b.connect(dir.resolve("none"))).errno());
            assertThrows(LinuxIpcException.class,
                    () -> UnixSocketAddress.of(dir.resolve("x".repeat(120))));
        }
        UnixDatagramSocket.unlink(path);
        assertEquals(LinuxIpcException.ENOENT, assertThrows(LinuxIpcException.class,
                () -> UnixDatagramSocket.unlink(path)).errno());
    }
}
