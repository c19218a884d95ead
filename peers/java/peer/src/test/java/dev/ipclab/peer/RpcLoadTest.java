package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ipclab.peer.burst.BurstOptions;
import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.rpc.RpcModel;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Loopback;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pattern load over the RPC mechanisms (PROTOCOL.md 11.5.4): the Java client against the Java
 * load server of every framework configuration in this JVM, a flipped response, and the command
 * line's refusals. Short schedules: 2 clients, 200 requests/s, 300 ms.
 */
class RpcLoadTest {
    private static final int CLIENTS = 2;
    private static final long RATE = 200;
    private static final long WARMUP_MS = 50;
    private static final long DURATION_MS = 300;

    @TempDir
    Path dir;

    /** Every (mechanism, configuration) the table lists for load over RPC. */
    static Stream<Arguments> rpcLoadModels() {
        return Arrays.stream(Mechanism.values()).flatMap(m -> m.rpcModels().stream()
                .map(model -> Arguments.of(m.label(), model.name())));
    }

    @ParameterizedTest
    @MethodSource("rpcLoadModels")
    void eachConfigurationServesAScheduleWhoseFilesAgree(String mechanism, String model)
            throws Exception {
        try (LoadFiles.Serving server = serve(mechanism, model, Fault.NONE)) {
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(0, Main.run(driveArgs(mechanism, server.endpoint()), err.stream),
                    err.text());
        }
        LoadFiles.checkClean(dir, CLIENTS, RATE, WARMUP_MS, DURATION_MS);
    }

    /** A wrong response is every request's payload-mismatch, the files written, then exit 3. */
    @ParameterizedTest
    @ValueSource(strings = {"grpc", "rest"})
    void aFlippedResponseIsAMismatchOfEveryRequest(String mechanism) throws Exception {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        try (LoadFiles.Serving server = serve(mechanism, firstModel(mechanism),
                Fault.FLIP_RESPONSE_BYTE)) {
            assertEquals(3, Main.run(driveArgs(mechanism, server.endpoint()), err.stream),
                    err.text());
        }
        assertTrue(err.text().contains("payload mismatch"), err.text());
        List<String[]> rows = LoadFiles.rows(dir);
        long measured = DURATION_MS * RATE / 1000;
        assertEquals(WARMUP_MS * RATE / 1000 + measured, rows.size());
        for (String[] row : rows) {
            assertEquals("payload-mismatch", row[6], String.join(",", row));
            assertTrue(!row[5].isEmpty(), "a mismatch was received: " + String.join(",", row));
        }
        assertEquals(0, Files.size(dir.resolve("samples")));
        JsonNode result = LoadFiles.result(dir);
        assertEquals("error", result.get("status").asText());
        assertEquals("payload-mismatch", result.get("error_kind").asText());
        assertEquals(0, result.get("requests_ok").asLong());
        assertEquals(measured, result.get("requests_failed").asLong());
        assertEquals(measured, result.get("errors").get("payload-mismatch").asLong());
    }

    @ParameterizedTest
    @ValueSource(strings = {"grpc", "rest"})
    void aDeadServerIsAnIoErrorWithTheScheduleStillCounted(String mechanism) throws Exception {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(5, Main.run(driveArgs(mechanism, "127.0.0.1:1"), err.stream), err.text());
        JsonNode result = LoadFiles.result(dir);
        assertEquals("io", result.get("error_kind").asText());
        assertEquals(DURATION_MS * RATE / 1000, result.get("iterations").asLong());
        assertEquals(0, result.get("requests_ok").asLong());
    }

    @Test
    void usageErrors() {
        String[] full = {"drive", "--pattern", "load", "--mechanism", "grpc", "--endpoint",
            "127.0.0.1:9", "--samples-file", "/tmp/s", "--result-file", "/tmp/r", "--clients", "2",
            "--rate", "10", "--duration-ms", "5", "--records-file", "/tmp/c"};
        String[] serve = {"serve", "--mechanism", "rest", "--endpoint", "127.0.0.1:0",
            "--pattern", "load", "--server-model", "cached-thread-pool"};
        for (String[] args : List.of(LoadTest.concat(full, "--iterations", "5"),
                LoadTest.concat(full, "--void"), LoadTest.concat(full, "--payload", "small"),
                LoadTest.concat(full, "--sequence-length", "3"),
                LoadTest.concat(full, "--http-client", "curl"),
                CliTest.replace(full, "--clients", "0"), CliTest.replace(full, "--rate", "0"),
                Arrays.copyOf(serve, serve.length - 2),
                LoadTest.concat(serve, "--phases-file", "/tmp/p"),
                LoadTest.concat(serve, "--connections", "3"),
                LoadTest.concat(serve, "--backlog", "0"))) {
            assertThrows(UsageException.class, () -> Cli.parse(args), String.join(" ", args));
        }
    }

    /** The burst servers' tuning and faults, and another configuration: unsupported (exit 7). */
    @Test
    void whatTheFrameworksServersDoNotTakeIsUnsupported() throws Exception {
        String[] serve = {"serve", "--mechanism", "grpc", "--endpoint", "127.0.0.1:0",
            "--pattern", "load", "--server-model", "default-executor"};
        for (String[] args : List.of(LoadTest.concat(serve, "--workers", "2"),
                LoadTest.concat(serve, "--backlog", "64"), LoadTest.concat(serve, "--fault", "stall"),
                LoadTest.concat(serve, "--fault", "capacity:100"),
                LoadTest.concat(serve, "--fault", "drop-stream-message"),
                CliTest.replace(serve, "--server-model", "sync"),
                CliTest.replace(serve, "--server-model", "thread"),
                CliTest.replace(CliTest.replace(serve, "--mechanism", "rest"), "--server-model",
                        "default-executor"))) {
            ServeOptions options = (ServeOptions) Cli.parse(args);
            PeerException e = assertThrows(PeerException.class,
                    () -> Servers.open(options, new Loopback.Diagnostics().stream),
                    String.join(" ", args));
            assertEquals(ErrorKind.UNSUPPORTED, e.kind(), e.getMessage());
        }
    }

    /** capabilities lists load and the configurations, READY names the one serving. */
    @Test
    void capabilitiesAndReadyNameTheConfigurations() throws Exception {
        Capabilities.Entry grpc = Capabilities.answer().mechanisms().get("grpc");
        assertTrue(grpc.patterns().contains("load"), grpc.toString());
        assertEquals(List.of("default-executor", "direct-executor"), grpc.loadModels());
        assertEquals(List.of("cached-thread-pool"),
                Capabilities.answer().mechanisms().get("rest").loadModels());
        try (LoadFiles.Serving server = serve("grpc", "direct-executor", Fault.NONE)) {
            assertEquals("direct-executor", server.server().serverModel());
        }
    }

    private LoadFiles.Serving serve(String mechanism, String model, Fault fault)
            throws PeerException {
        return LoadFiles.Serving.start(new ServeOptions(mechanism, "127.0.0.1:0", 1, fault,
                Mechanism.DEFAULT_POLL_INTERVAL_NANOS, Mechanism.DEFAULT_SPIN_NANOS,
                BurstOptions.load(model, BurstOptions.DEFAULT_WORKERS, true), true));
    }

    private static String firstModel(String mechanism) {
        return Mechanism.byName(mechanism).orElseThrow().rpcModels().stream()
                .map(RpcModel::name).findFirst().orElseThrow();
    }

    private String[] driveArgs(String mechanism, String endpoint) {
        return LoadFiles.driveArgs(dir, mechanism, endpoint, CLIENTS, RATE, WARMUP_MS, DURATION_MS);
    }
}
