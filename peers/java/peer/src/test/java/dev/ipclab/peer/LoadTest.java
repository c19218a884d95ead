package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ipclab.peer.burst.BurstOptions;
import dev.ipclab.peer.burst.ServerModel;
import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Loopback;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Pattern load (PROTOCOL.md 11.5): the Java client against the Java load server of every model,
 * the files' agreement with each other, and the command line's refusals.
 */
class LoadTest {
    private static final int CLIENTS = 2;
    private static final long RATE = 2000;
    private static final long WARMUP_MS = 50;
    private static final long DURATION_MS = 200;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void eachModelServesAScheduleWhoseFilesAgree(ServerModel model) throws Exception {
        runSchedule("tcp", "127.0.0.1:0", model);
    }

    /** uds: the same models on a UNIX listening socket; its file is gone once the server is. */
    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void eachModelServesAScheduleOverUds(ServerModel model) throws Exception {
        Path socket = dir.resolve("load.sock");
        runSchedule("uds", socket.toString(), model);
        assertFalse(Files.exists(socket, LinkOption.NOFOLLOW_LINKS), "socket file left behind");
    }

    private void runSchedule(String mechanism, String endpoint, ServerModel model)
            throws Exception {
        try (LoadFiles.Serving server = LoadFiles.Serving.start(new ServeOptions(mechanism,
                endpoint, 1, Fault.NONE, Mechanism.DEFAULT_POLL_INTERVAL_NANOS,
                Mechanism.DEFAULT_SPIN_NANOS, BurstOptions.load(model.label(), 2, true), true))) {
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(0, Main.run(driveArgs(mechanism, server.endpoint()), err.stream),
                    err.text());
        }
        LoadFiles.checkClean(dir, CLIENTS, RATE, WARMUP_MS, DURATION_MS);
    }

    @Test
    void aUdsLoadServerRefusesAnExistingPath() throws Exception {
        Path taken = Files.createFile(dir.resolve("taken.sock"));
        ServeOptions options = (ServeOptions) Cli.parse(new String[] {"serve", "--mechanism",
            "uds", "--endpoint", taken.toString(), "--pattern", "load", "--server-model", "nio"});
        PeerException e = assertThrows(PeerException.class,
                () -> Servers.open(options, new Loopback.Diagnostics().stream));
        assertEquals(ErrorKind.IO, e.kind(), e.getMessage());
        assertTrue(Files.exists(taken), "a refused server removes nothing");
    }

    private String[] driveArgs(String endpoint) {
        return driveArgs("tcp", endpoint);
    }

    private String[] driveArgs(String mechanism, String endpoint) {
        return LoadFiles.driveArgs(dir, mechanism, endpoint, CLIENTS, RATE, WARMUP_MS, DURATION_MS);
    }

    @Test
    void aDeadServerIsAnIoErrorWithTheScheduleStillCounted() throws Exception {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(5, Main.run(driveArgs("127.0.0.1:1"), err.stream), err.text());
        JsonNode result = new ObjectMapper().readTree(dir.resolve("result.json").toFile());
        assertEquals("io", result.get("error_kind").asText());
        assertEquals(DURATION_MS * RATE / 1000, result.get("iterations").asLong());
        assertEquals(0, result.get("requests_ok").asLong());
    }

    @Test
    void usageErrors() {
        String[] base = {"drive", "--pattern", "load", "--mechanism", "tcp", "--endpoint",
            "127.0.0.1:9", "--samples-file", "/tmp/s", "--result-file", "/tmp/r"};
        String[] full = concat(base, "--clients", "2", "--rate", "10", "--duration-ms", "5",
                "--records-file", "/tmp/c");
        for (String[] args : List.of(
                concat(base, "--rate", "10", "--duration-ms", "5", "--records-file", "/tmp/c"),
                concat(full, "--iterations", "5"), concat(full, "--warmup", "1"),
                concat(full, "--payload", "bytes"), concat(full, "--one-way"),
                concat(full, "--arrival", "uniform"), CliTest.replace(full, "--clients", "0"),
                CliTest.replace(full, "--clients", "1025"), CliTest.replace(full, "--rate", "10000001"),
                CliTest.replace(full, "--duration-ms", "0"), concat(full, "--warmup-ms", "3600001"),
                new String[] {"drive", "--mechanism", "tcp", "--endpoint", "127.0.0.1:9",
                    "--request-size", "1", "--response-size", "1", "--iterations", "1",
                    "--samples-file", "/tmp/s", "--result-file", "/tmp/r", "--clients", "2"},
                new String[] {"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
                    "--pattern", "rr", "--server-model", "thread"},
                new String[] {"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
                    "--pattern", "load"},
                new String[] {"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
                    "--pattern", "load", "--server-model", "thread", "--phases-file", "/tmp/p"},
                new String[] {"serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0",
                    "--pattern", "load", "--server-model", "thread", "--fault", "capacity:0"})) {
            assertThrows(UsageException.class, () -> Cli.parse(args), String.join(" ", args));
        }
    }

    @Test
    void theLoadFaultsAndAnUnknownModelAreUnsupported() throws Exception {
        for (String[] extra : List.of(new String[] {"--fault", "stall"},
                new String[] {"--fault", "capacity:1000"},
                new String[] {"--fault", "flip-response-byte"}, new String[] {})) {
            String model = extra.length == 0 ? "epoll" : "thread";
            ServeOptions options = (ServeOptions) Cli.parse(concat(new String[] {"serve",
                "--mechanism", "tcp", "--endpoint", "127.0.0.1:0", "--pattern", "load",
                "--server-model", model}, extra));
            PeerException e = assertThrows(PeerException.class,
                    () -> Servers.open(options, new Loopback.Diagnostics().stream));
            assertEquals(ErrorKind.UNSUPPORTED, e.kind(), e.getMessage());
        }
    }

    static String[] concat(String[] head, String... tail) {
        String[] all = java.util.Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }
}
