package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.PosixMessageQueue;
import dev.ipclab.linuxipc.SysVMessageQueue;
import dev.ipclab.linuxipc.SysVSemaphoreSet;
import dev.ipclab.linuxipc.SysVSharedMemory;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.Vectors;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.transport.ClientLink;
import dev.ipclab.peer.transport.SysVKeys;
import dev.ipclab.peer.transport.SysVShm;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** sysv-mq, posix-mq, sysv-shm, file, file-poll: sizes around M, clean-up, timeouts, errors. */
class NewMechanismsTest {
    private static final long TIMEOUT = 300_000_000L;

    @TempDir
    Path dir;

    private final List<TestCleanup> cleanups = new ArrayList<>();

    interface TestCleanup {
        void run() throws Exception;
    }

    @AfterEach
    void removeWhatTheTestMade() {
        for (TestCleanup c : cleanups) {
            try {
                c.run();
            } catch (Exception e) {
                // already gone
            }
        }
    }

    /** Sizes around each message size M (8192; shm: 48 inline, 1 MiB slots). */
    static Stream<Arguments> cases() {
        return Stream.concat(RoundTripTest.everySize(List.of(Mechanism.SYSV_MQ,
                Mechanism.POSIX_MQ, Mechanism.SYSV_SHM, Mechanism.FILE, Mechanism.FILE_POLL),
                0, 16, 8191, 8192, 8193, (1 << 20) + 1), RoundTripTest.everySize(List.of(
                Mechanism.SHM, Mechanism.SHM_SPIN, Mechanism.SHM_FUTEX), 0, 16, 48, 49, 1 << 20,
                (1 << 20) + 1));
    }

    @ParameterizedTest(name = "{0} {1} B")
    @MethodSource("cases")
    void roundTripsAndCleanUp(Mechanism mechanism, int size) throws Throwable {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        String endpoint;
        try (ServerHarness server = ServerHarness.start(mechanism, dir, false)) {
            endpoint = server.clientEndpoint;
            RoundTripTest.assertRoundTrips(server, dir, size, size, err);
            assertEquals("", server.diagnostics.text());
        }
        Leftovers.assertNone(mechanism, endpoint, ProcessHandle.current().pid());
        assertEquals("", err.text());
    }

    @ParameterizedTest
    @EnumSource(names = {"SYSV_MQ", "POSIX_MQ", "SYSV_SHM"})
    void serverEndpointIsTaggedAndObjectsAreOwnerOnly(Mechanism mechanism) throws Throwable {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, false)) {
            String endpoint = server.clientEndpoint;
            if (mechanism == Mechanism.POSIX_MQ) {
                assertEquals("posix:/ipclab-" + ProcessHandle.current().pid(), endpoint);
            } else {
                assertTrue(endpoint.matches("sysv:0x1c1a[0-9a-f]{4}") && !endpoint.endsWith("0000"),
                        endpoint);
                String key = Integer.toString(SysVKeys.parse(endpoint));
                for (String kind : mechanism == Mechanism.SYSV_MQ ? List.of("msg") : List.of("shm", "sem")) {
                    String line = Leftovers.sysvipcLine(kind, key);
                    assertTrue(line != null, kind + " object missing");
                    assertEquals("600", line.trim().split("\\s+")[2], line);
                }
            }
        }
    }

    @Test
    void sysvMqClientFailsWithIoWhenTheQueueIsRemoved() throws Throwable {
        SysVMessageQueue q = SysVMessageQueue.create(freeKey(), 0600);
        cleanups.add(q::remove);
        DriveOptions options = drive(Mechanism.SYSV_MQ, SysVKeys.endpoint(q.key()));
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        CompletableFuture<Integer> client = CompletableFuture.supplyAsync(
                () -> new Client(options, err.stream).run());
        Thread.sleep(200);
        q.remove();
        assertEquals(5, client.get(10, TimeUnit.SECONDS));
        assertTrue(err.text().contains("Identifier removed"), err.text());
    }

    @Test
    void posixMqClientTimesOut() throws Throwable {
        String name = "/ipclab-" + ProcessHandle.current().pid() + "-t" + ThreadLocalRandom.current().nextInt(1 << 20);
        for (String suffix : List.of("-1", "-2")) {
            PosixMessageQueue q = PosixMessageQueue.create(name + suffix, 10, 8192, 0600);
            cleanups.add(() -> {
                q.close();
                PosixMessageQueue.unlink(name + suffix);
            });
        }
        assertTimeout(drive(Mechanism.POSIX_MQ, "posix:" + name));
    }

    @Test
    void sysvShmClientTimesOut() throws Throwable {
        int key = freeKey();
        SysVSharedMemory shm = SysVSharedMemory.create(key, SysVShm.SIZE, 0600);
        cleanups.add(shm::remove);
        SysVSemaphoreSet sems = SysVSemaphoreSet.create(key, 4, 0600);
        cleanups.add(sems::remove);
        sems.setAll(1, 0, 1, 0);
        assertTimeout(drive(Mechanism.SYSV_SHM, SysVKeys.endpoint(key)));
    }

    @ParameterizedTest
    @EnumSource(names = {"FILE", "FILE_POLL"})
    void fileClientTimesOut(Mechanism mechanism) throws Throwable {
        Path endpoint = Files.createDirectory(dir.resolve("silent"));
        assertTimeout(drive(mechanism, endpoint.toString()));
    }

    @ParameterizedTest
    @EnumSource(names = {"SYSV_MQ", "POSIX_MQ", "SYSV_SHM", "FILE", "FILE_POLL"})
    void serverRejectsBadMagicAndServesTheNextClient(Mechanism mechanism) throws Throwable {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, false)) {
            try (ClientLink bad = mechanism.connect(server.clientEndpoint, TIMEOUT)) {
                bad.send(ByteBuffer.wrap(Vectors.hex(Vectors.list("malformed").get(0), "hex")));
            }
            waitFor(() -> !server.diagnostics.text().isEmpty());
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            DriveOptions options = RoundTripTest.options(server, dir, 16, 16);
            assertEquals(0, new Client(options, err.stream).run(), err.text());
            assertEquals("ipclab-peer: rejected frame: bad magic" + System.lineSeparator(),
                    server.diagnostics.text());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"FILE", "FILE_POLL"})
    void fileServerChecksTheFileSize(Mechanism mechanism) throws Throwable {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, false)) {
            Path d = Path.of(server.clientEndpoint);
            Files.write(d.resolve("req.tmp"), new byte[10]);
            Files.move(d.resolve("req.tmp"), d.resolve("req"));
            waitFor(() -> server.diagnostics.text().contains("truncated header"));
            ByteBuffer frame = Frame.allocate(Frame.HEADER_SIZE + 4);
            Frame.writeHeader(frame, Frame.REQUEST, 0, 5, 0);
            byte[] bytes = new byte[frame.capacity()];
            frame.get(0, bytes);
            Files.write(d.resolve("req.tmp"), bytes);
            Files.move(d.resolve("req.tmp"), d.resolve("req"));
            waitFor(() -> server.diagnostics.text().contains("length mismatch"));
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(0, new Client(RoundTripTest.options(server, dir, 16, 16), err.stream).run(),
                    err.text());
        }
    }

    @Test
    void pollIntervalIsParsedForBothRoles() throws Exception {
        ServeOptions serve = (ServeOptions) Cli.parse(new String[] {"serve", "--mechanism",
                "file-poll", "--endpoint", "/tmp/d", "--poll-interval-us", "250"});
        assertEquals(250_000L, serve.pollIntervalNanos());
        DriveOptions drive = (DriveOptions) Cli.parse(new String[] {"drive", "--mechanism", "file",
                "--endpoint", "/tmp/d", "--request-size", "1", "--response-size", "1",
                "--iterations", "1", "--samples-file", "/tmp/s", "--result-file", "/tmp/r"});
        assertEquals(2_000_000L, drive.pollIntervalNanos());
        for (String bad : List.of("0", "-1", "1.5", "", "99999999999999999999")) {
            org.junit.jupiter.api.Assertions.assertThrows(UsageException.class, () -> Cli.parse(
                    new String[] {"serve", "--mechanism", "file-poll", "--endpoint", "/tmp/d",
                        "--poll-interval-us", bad}), bad);
        }
    }

    private void assertTimeout(DriveOptions options) throws IOException {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(6, new Client(options, err.stream).run(), err.text());
        assertEquals("timeout", RoundTripTest.result(options).get("error_kind").asText());
    }

    private DriveOptions drive(Mechanism mechanism, String endpoint) {
        return new DriveOptions(mechanism.label(), endpoint, "rr", 16, 16, 0, 1,
                dir.resolve("s"), dir.resolve("r.json"), 1, TIMEOUT);
    }

    /** A tagged key no object uses now. */
    private static int freeKey() {
        while (true) {
            int key = SysVKeys.TAG | ThreadLocalRandom.current().nextInt(1, 0x10000);
            try {
                SysVMessageQueue.open(key);
            } catch (LinuxIpcException e) {
                try {
                    SysVSharedMemory.open(key);
                } catch (LinuxIpcException e2) {
                    return key;
                }
            }
        }
    }

    static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met in 10 s");
            Thread.sleep(5);
        }
    }
}
