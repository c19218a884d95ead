package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ipclab.linuxipc.PosixSharedMemory;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.server.Server;
import dev.ipclab.peer.transport.Shm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** shm, shm-spin, shm-futex (PROTOCOL.md section 4.3). */
class ShmTest {
    private static final long TIMEOUT = 300_000_000L;

    @TempDir
    Path dir;

    /**
     * The object is 0600 and of the layout's size; clients of every size take turns over it, the
     * counters carrying on (round trips at each size and the clean-up: NewMechanismsTest).
     */
    @ParameterizedTest
    @EnumSource(names = {"SHM", "SHM_SPIN", "SHM_FUTEX"})
    void objectIsOwnerOnlyAndServesClientsInTurn(Mechanism mechanism) throws Throwable {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        try (ServerHarness server = ServerHarness.start(mechanism, dir, false)) {
            assertEquals("posix:/ipclab-" + ProcessHandle.current().pid(), server.clientEndpoint);
            Path object = Path.of("/dev/shm/ipclab-" + ProcessHandle.current().pid() + "-shm");
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(object)));
            assertEquals(Shm.SIZE, Files.size(object));
            for (int size : new int[] {0, 16, 1 << 20, (1 << 20) + 1}) {
                RoundTripTest.assertRoundTrips(server, dir, size, size, err);
                RoundTripTest.assertRoundTrips(server, dir, size, 16, err);
            }
            assertEquals("", server.diagnostics.text());
        }
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
        try (Server server = Servers.open(serveOptions, serverErr.stream)) {
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
