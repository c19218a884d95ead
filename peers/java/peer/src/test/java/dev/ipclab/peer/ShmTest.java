package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ipclab.linuxipc.PosixSharedMemory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** shm, shm-spin, shm-futex (PROTOCOL.md section 4.3). */
class ShmTest {
    private static final long TIMEOUT = 300_000_000L;

    @TempDir
    Path dir;

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (Mechanism m : List.of(Mechanism.SHM, Mechanism.SHM_SPIN, Mechanism.SHM_FUTEX)) {
            for (int size : new int[] {0, 16, 1 << 20, (1 << 20) + 1}) {
                cases.add(Arguments.of(m, size));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} B")
    @MethodSource("cases")
    void roundTripsAndCleanUp(Mechanism mechanism, int size) throws Throwable {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        Path object;
        try (ServerHarness server = ServerHarness.start(mechanism, dir, false)) {
            String prefix = "posix:/ipclab-" + ProcessHandle.current().pid();
            assertEquals(prefix, server.clientEndpoint);
            object = Path.of("/dev/shm/ipclab-" + ProcessHandle.current().pid() + "-shm");
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(object)));
            assertEquals(Shm.SIZE, Files.size(object));
            // Two clients in turn over the same object: the counters carry on.
            for (int client = 0; client < 2; client++) {
                DriveOptions options = RoundTripTest.options(server, dir, size, size);
                assertEquals(0, new Client(options, err.stream).run(), err.text());
                assertEquals(7, RoundTripTest.result(options).get("samples").asLong());
            }
            DriveOptions asymmetric = RoundTripTest.options(server, dir, size, 16);
            assertEquals(0, new Client(asymmetric, err.stream).run(), err.text());
            assertEquals("", server.diagnostics.text());
        }
        assertFalse(Files.exists(object), object + " left behind");
        assertEquals("", err.text());
    }

    @ParameterizedTest
    @EnumSource(names = {"SHM", "SHM_SPIN", "SHM_FUTEX"})
    void flippedResponseByteIsAPayloadMismatch(Mechanism mechanism) throws Throwable {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, true)) {
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            DriveOptions options = RoundTripTest.options(server, dir, 16, 16);
            assertEquals(3, new Client(options, err.stream).run(), err.text());
            assertTrue(err.text().contains("payload mismatch"), err.text());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"SHM", "SHM_SPIN", "SHM_FUTEX"})
    void clientTimesOutWithoutAServer(Mechanism mechanism) throws Throwable {
        String prefix = "/ipclab-" + ProcessHandle.current().pid() + "-t"
                + ThreadLocalRandom.current().nextInt(1 << 20);
        try (PosixSharedMemory shm = PosixSharedMemory.create(prefix + Shm.SUFFIX, Shm.SIZE, 0600)) {
            try {
                DriveOptions options = new DriveOptions(mechanism.label(), "posix:" + prefix, "rr",
                        16, 16, 0, 1, dir.resolve("s"), dir.resolve("r.json"), 1, TIMEOUT);
                Loopback.Diagnostics err = new Loopback.Diagnostics();
                long begin = System.nanoTime();
                assertEquals(6, new Client(options, err.stream).run(), err.text());
                assertTrue(System.nanoTime() - begin < 5_000_000_000L);
                assertEquals("timeout", RoundTripTest.result(options).get("error_kind").asText());
            } finally {
                PosixSharedMemory.unlink(prefix + Shm.SUFFIX);
            }
        }
    }

    /**
     * The offsets of the contract's table, read back raw: each side writes only its own line,
     * messages of at most 48 bytes travel in it, longer ones in the slots.
     */
    @Test
    void layoutHasOneLinePerSideAndInlineMessages() throws Throwable {
        String name = "/ipclab-" + ProcessHandle.current().pid() + "-l"
                + ThreadLocalRandom.current().nextInt(1 << 20) + Shm.SUFFIX;
        try (PosixSharedMemory serverSide = PosixSharedMemory.create(name, Shm.SIZE, 0600);
                PosixSharedMemory clientSide = PosixSharedMemory.open(name, Shm.SIZE, false)) {
            try {
                MemorySegment raw = serverSide.memory();
                Shm server = new Shm(serverSide, true, Shm.Wait.SPIN, 0, 0);
                Shm client = new Shm(clientSide, false, Shm.Wait.SPIN, 0, TIMEOUT);
                byte[] request = new byte[48];
                byte[] response = new byte[30];
                for (int i = 0; i < 48; i++) {
                    request[i] = (byte) (i + 1);
                }
                for (int i = 0; i < 30; i++) {
                    response[i] = (byte) (100 + i);
                }
                client.send(ByteBuffer.wrap(request), 0, 48);
                assertArrayEquals(new int[] {1, 0, 48, 0}, words(raw, 0, 4));
                assertArrayEquals(request, bytes(raw, 16, 48));
                assertArrayEquals(new int[] {0, 0, 0, 0}, words(raw, 64, 4));
                assertEquals(48, server.receive());
                assertArrayEquals(request, bytes(server.received(), 48));
                server.release();
                assertArrayEquals(new int[] {0, 1, 0, 0}, words(raw, 64, 4)); // ack1
                server.send(ByteBuffer.wrap(response), 0, 30);
                assertArrayEquals(new int[] {1, 1, 30, 0}, words(raw, 64, 4));
                assertArrayEquals(response, bytes(raw, 80, 30));
                assertEquals(30, client.receive());
                assertArrayEquals(response, bytes(client.received(), 30));
                client.release();
                assertArrayEquals(new int[] {1, 1, 48, 0}, words(raw, 0, 4)); // ack2
                // 49 bytes: the slot; the line keeps only the counters and the length.
                byte[] longer = new byte[49];
                for (int i = 0; i < 49; i++) {
                    longer[i] = (byte) i;
                }
                client.send(ByteBuffer.wrap(longer), 0, 49);
                assertArrayEquals(new int[] {2, 1, 49}, words(raw, 0, 3));
                assertArrayEquals(longer, bytes(raw, 4096, 49));
                assertArrayEquals(request, bytes(raw, 16, 48));
                assertEquals(49, server.receive());
                assertArrayEquals(longer, bytes(server.received(), 49));
                server.release();
                server.send(ByteBuffer.wrap(longer), 0, 49);
                assertArrayEquals(new int[] {2, 2, 49}, words(raw, 64, 3));
                assertArrayEquals(longer, bytes(raw, 4096 + (1 << 20), 49));
                assertEquals(49, client.receive());
                client.release();
                assertArrayEquals(new int[] {0}, words(raw, 128, 1)); // sleepers: none slept
                assertArrayEquals(new int[] {0}, words(raw, 192, 1));
            } finally {
                PosixSharedMemory.unlink(name);
            }
        }
    }

    private static int[] words(MemorySegment raw, long at, int count) {
        int[] out = new int[count];
        for (int i = 0; i < count; i++) {
            out[i] = raw.get(ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN), at + 4L * i);
        }
        return out;
    }

    private static byte[] bytes(MemorySegment raw, long at, int count) {
        return raw.asSlice(at, count).toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] bytes(ByteBuffer buffer, int count) {
        byte[] out = new byte[count];
        buffer.get(0, out);
        return out;
    }

    @Test
    void clientWithoutTheObjectIsAnIoError() throws Throwable {
        DriveOptions options = new DriveOptions("shm", "posix:/ipclab-0-none", "rr", 16, 16, 0, 1,
                dir.resolve("s"), dir.resolve("r.json"), 1, TIMEOUT);
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(5, new Client(options, err.stream).run(), err.text());
    }

    @Test
    void spinUsIsParsedForBothRoles() throws Exception {
        ServeOptions serve = (ServeOptions) Cli.parse(new String[] {"serve", "--mechanism", "shm",
                "--endpoint", "auto", "--spin-us", "7"});
        assertEquals(7_000L, serve.spinNanos());
        DriveOptions drive = (DriveOptions) Cli.parse(new String[] {"drive", "--mechanism", "shm",
                "--endpoint", "posix:/ipclab-1", "--request-size", "1", "--response-size", "1",
                "--iterations", "1", "--samples-file", "/tmp/s", "--result-file", "/tmp/r"});
        assertEquals(50_000L, drive.spinNanos());
        assertEquals(0L, ((ServeOptions) Cli.parse(new String[] {"serve", "--mechanism", "shm",
                "--endpoint", "auto", "--spin-us", "0"})).spinNanos());
        for (String bad : List.of("-1", "1.5", "", "99999999999999999999")) {
            assertThrows(UsageException.class, () -> Cli.parse(new String[] {"serve",
                "--mechanism", "shm", "--endpoint", "auto", "--spin-us", bad}), bad);
        }
        assertThrows(UsageException.class, () -> Cli.parse(new String[] {"serve", "--mechanism",
            "shm-spin", "--endpoint", "/tmp/x"}));
    }

    @Test
    void hybridWithoutSpinningStillWorks() throws Throwable {
        ServeOptions serveOptions = new ServeOptions("shm", "auto", 1, Fault.NONE,
                Mechanism.DEFAULT_POLL_INTERVAL_NANOS, 0);
        Loopback.Diagnostics serverErr = new Loopback.Diagnostics();
        try (Server server = Server.open(serveOptions, serverErr.stream)) {
            Thread serving = Thread.ofPlatform().daemon().start(server::serve);
            DriveOptions options = new DriveOptions("shm", server.endpoint(), "rr", 100, 100, 5, 50,
                    dir.resolve("s"), dir.resolve("r.json"), 1, 5_000_000_000L,
                    Mechanism.DEFAULT_POLL_INTERVAL_NANOS, 0, null);
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(0, new Client(options, err.stream).run(), err.text());
            server.stop();
            serving.join(10_000);
            assertFalse(serving.isAlive());
        }
    }
}
