package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The RPC mechanisms of section 10: a server in a child JVM (as the orchestrator runs it), the
 * client in this one. Few calls per case: CI runs every language's suite.
 */
class RpcTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path dir;

    /** The RPC mechanisms of section 10, from the table: those that carry structured records. */
    static Stream<String> rpcMechanisms() {
        return Arrays.stream(Mechanism.values()).filter(Mechanism::carriesRecords)
                .map(Mechanism::label);
    }

    /**
     * Round trips of bytes (16 B, 1 MiB) and of each record, then --void (10.1): puts of bytes
     * and of each record, against one server per framework (a server JVM is most of a case's
     * time); a server drawing another seed counts the client's puts as corrupted.
     */
    @ParameterizedTest
    @MethodSource("rpcMechanisms")
    void roundTripsAndVoidPutsOfBytesAndStructs(String mechanism) throws Exception {
        try (Child server = serve(mechanism, "none")) {
            assertEquals(0, drive(mechanism, server.endpoint, "--request-size", "16",
                    "--response-size", "16", "--warmup", "5", "--iterations", "20"), server.err());
            assertEquals(0, drive(mechanism, server.endpoint, "--request-size", "1048576",
                    "--response-size", "1048576", "--iterations", "2"), server.err());
            for (String payload : List.of("small", "medium", "large")) {
                assertEquals(0, drive(mechanism, server.endpoint, "--payload", payload,
                        "--sequence-length", "7", "--iterations", "3"), server.err());
                JsonNode result = MAPPER.readTree(dir.resolve("r.json").toFile());
                assertEquals(payload, result.get("payload").asText());
                assertEquals(7, result.get("sequence_length").asInt());
                assertEquals(0, result.get("request_size").asInt());
            }
            assertEquals(0, drive(mechanism, server.endpoint, "--void", "--request-size", "1000",
                    "--response-size", "0", "--warmup", "3", "--iterations", "10"), lastError);
            assertEquals(10, MAPPER.readTree(dir.resolve("r.json").toFile()).get("samples").asInt());
            for (String payload : List.of("small", "medium", "large")) {
                assertEquals(0, drive(mechanism, server.endpoint, "--void", "--payload", payload,
                        "--iterations", "3"), lastError);
            }
        }
        try (Child server = serve(mechanism, "none", "--seed", "2")) {
            assertEquals(3, drive(mechanism, server.endpoint, "--void", "--request-size", "16",
                    "--iterations", "2"), lastError);
            assertTrue(lastError.contains("2 corrupted"), lastError);
        }
    }

    /**
     * --records per-call and --value-range non-negative (10.2, contract 6): each call's own
     * record echoed and checked, voids too, over a binary and a text framework.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"thrift-compact", "rest"})
    void perCallRecordsOfNonNegativeIntsRoundTrip(String mechanism) throws Exception {
        try (Child server = serve(mechanism, "none")) {
            for (String payload : List.of("small", "large")) {
                assertEquals(0, drive(mechanism, server.endpoint, "--payload", payload,
                        "--records", "per-call", "--value-range", "non-negative",
                        "--sequence-length", "4", "--warmup", "3", "--iterations", "10"),
                        lastError);
                assertEquals(0, drive(mechanism, server.endpoint, "--payload", payload,
                        "--records", "per-call", "--iterations", "5"), lastError);
                assertEquals(0, drive(mechanism, server.endpoint, "--payload", payload,
                        "--value-range", "non-negative", "--void", "--iterations", "5"),
                        lastError);
            }
        }
    }

    @Test
    void jdkHttpClientRoundTrips() throws Exception {
        try (Child server = serve("rest", "none")) {
            assertEquals(0, drive("rest", server.endpoint, "--http-client", "jdk",
                    "--request-size", "100", "--response-size", "70000", "--iterations", "5"));
            assertEquals(0, drive("rest", server.endpoint, "--http-client", "jdk",
                    "--payload", "medium", "--iterations", "3"));
        }
    }

    @ParameterizedTest
    @MethodSource("rpcMechanisms")
    void flippedResponseByteAndN2AreMismatches(String mechanism) throws Exception {
        try (Child server = serve(mechanism, "flip-response-byte")) {
            assertEquals(3, drive(mechanism, server.endpoint, "--request-size", "16",
                    "--response-size", "16", "--iterations", "1"));
            assertTrue(lastError.contains("payload mismatch"), lastError);
            assertEquals(3, drive(mechanism, server.endpoint, "--payload", "small",
                    "--iterations", "1"));
            assertTrue(lastError.contains("field n2"), lastError);
        }
    }

    /** Section 11.3: a client-streaming call per stream; both faults fail the client. */
    @Test
    void grpcStreamsWithCpuFiguresAndFailsOnEitherStreamFault() throws Exception {
        try (Child server = serve("grpc", "none")) {
            assertEquals(0, drive("grpc", server.endpoint, "--pattern", "stream", "--message-size",
                    "1000", "--messages", "2000", "--windows", "4", "--warmup", "50"), lastError);
            JsonNode result = MAPPER.readTree(dir.resolve("r.json").toFile());
            assertEquals(4, result.get("samples").asInt());
            assertTrue(result.get("server_cpu").get("user_ns").asLong() > 0, result.toString());
        }
        for (String fault : List.of("drop-stream-message", "flip-stream-byte")) {
            try (Child server = serve("grpc", fault)) {
                assertEquals(3, drive("grpc", server.endpoint, "--pattern", "stream",
                        "--message-size", "13", "--messages", "10"), lastError);
                assertTrue(lastError.contains("payload mismatch"), lastError);
            }
        }
    }

    /** Section 11.3: rest short asks for Connection: close, with either HTTP client. */
    @Test
    void restShortConnectionsWithBothClients() throws Exception {
        try (Child server = serve("rest", "none")) {
            for (String client : List.of("okhttp", "jdk")) {
                assertEquals(0, drive("rest", server.endpoint, "--pattern", "short", "--http-client",
                        client, "--request-size", "100", "--response-size", "1", "--warmup", "3",
                        "--iterations", "20"), lastError);
            }
        }
    }

    @Test
    void thriftCarriesMaxPayloadBothWays() throws Exception {
        try (Child server = serve("thrift-binary", "none")) {
            assertEquals(0, drive("thrift-binary", server.endpoint, "--request-size", "134217728",
                    "--response-size", "134217728", "--iterations", "1"), lastError);
        }
    }

    @Test
    void corbaCarriesMaxPayloadBothWays() throws Exception {
        try (Child server = serve("corba", "none")) {
            assertEquals(0, drive("corba", server.endpoint, "--request-size", "134217728",
                    "--response-size", "134217728", "--iterations", "1"), lastError);
        }
    }

    /** A corba client reaches its server through the IOR, which names HOST:PORT inside. */
    @Test
    void corbaRefusedIsIoAndEndpointMustBeAnIor() throws Exception {
        String ior;
        try (Child server = serve("corba", "none")) {
            ior = server.endpoint;
        }
        assertEquals(5, drive("corba", ior, "--request-size", "1", "--response-size", "1",
                "--iterations", "1", "--io-timeout", "5"), lastError);
        assertEquals(2, drive("corba", "127.0.0.1:1", "--request-size", "1", "--response-size", "1",
                "--iterations", "1"));
    }

    @Test
    void refusedConnectionIsIo() throws Exception {
        assertEquals(5, drive("grpc", "127.0.0.1:1", "--request-size", "1", "--response-size", "1",
                "--iterations", "1", "--io-timeout", "5"));
        assertEquals(5, drive("thrift-compact", "127.0.0.1:1", "--request-size", "1",
                "--response-size", "1", "--iterations", "1"));
        assertEquals(5, drive("rest", "127.0.0.1:1", "--request-size", "1", "--response-size", "1",
                "--iterations", "1"));
        assertEquals(5, drive("rmi", "127.0.0.1:1", "--request-size", "1", "--response-size", "1",
                "--iterations", "1"));
        assertEquals(5, drive("ice", "127.0.0.1:1", "--request-size", "1", "--response-size", "1",
                "--iterations", "1"));
    }

    @Test
    void structuredPayloadElsewhereIsUnsupportedAndSizesMustBeZero() throws Exception {
        assertEquals(7, drive("tcp", "127.0.0.1:1", "--payload", "small", "--iterations", "1"));
        assertEquals(2, drive("grpc", "127.0.0.1:1", "--payload", "small", "--request-size", "5",
                "--iterations", "1"));
        assertEquals(2, drive("grpc", "127.0.0.1:1", "--iterations", "1"));
        assertEquals(2, drive("rest", "127.0.0.1:1", "--payload", "small", "--http-client", "curl",
                "--iterations", "1"));
    }

    @Test
    void voidNeedsRrAnRpcMechanismAndNoResponse() {
        assertEquals(2, drive("grpc", "127.0.0.1:1", "--void", "--request-size", "1",
                "--response-size", "1", "--iterations", "1"));
        assertEquals(2, drive("rest", "127.0.0.1:1", "--void", "--pattern", "short",
                "--request-size", "1", "--iterations", "1"));
        assertEquals(2, drive("grpc", "127.0.0.1:1", "--void", "yes", "--request-size", "1",
                "--iterations", "1"));
        assertEquals(7, drive("tcp", "127.0.0.1:1", "--void", "--request-size", "1",
                "--iterations", "1"));
        assertTrue(lastError.contains("not an RPC mechanism"), lastError);
    }

    /** --nodelay off on both sides: OkHttp and the JDK server, grpc-java's Netty on both. */
    @Test
    void restAndGrpcKeepNagleOnWithNodelayOff() throws Exception {
        for (String mechanism : List.of("rest", "grpc")) {
            try (Child server = serve(mechanism, "none", "--nodelay", "off")) {
                assertEquals(0, drive(mechanism, server.endpoint, "--nodelay", "off",
                        "--request-size", "100", "--response-size", "100", "--iterations", "5"),
                        lastError);
                assertEquals(0, drive(mechanism, server.endpoint, "--nodelay", "off", "--void",
                        "--request-size", "100", "--iterations", "5"), lastError);
            }
        }
        try (Child server = serve("rest", "none", "--nodelay", "off")) {
            assertEquals(0, drive("rest", server.endpoint, "--nodelay", "off", "--pattern", "short",
                    "--request-size", "10", "--response-size", "10", "--iterations", "5"), lastError);
        }
    }

    /** --rest-body json: {"data": base64} both ways, with both clients, rr, short and --void. */
    @Test
    void restJsonBodiesWithBothClients() throws Exception {
        try (Child server = serve("rest", "none")) {
            for (String client : List.of("okhttp", "jdk")) {
                assertEquals(0, drive("rest", server.endpoint, "--rest-body", "json", "--http-client",
                        client, "--request-size", "1048576", "--response-size", "1000",
                        "--warmup", "2", "--iterations", "5"), lastError);
                assertEquals(0, drive("rest", server.endpoint, "--rest-body", "json", "--http-client",
                        client, "--pattern", "short", "--request-size", "0", "--response-size", "7",
                        "--iterations", "5"), lastError);
                assertEquals(0, drive("rest", server.endpoint, "--rest-body", "json", "--http-client",
                        client, "--void", "--request-size", "100", "--iterations", "5"), lastError);
            }
        }
        try (Child server = serve("rest", "flip-response-byte")) {
            assertEquals(3, drive("rest", server.endpoint, "--rest-body", "json", "--request-size",
                    "1", "--response-size", "9", "--iterations", "1"), lastError);
        }
        assertEquals(7, drive("grpc", "127.0.0.1:1", "--rest-body", "json", "--request-size", "1",
                "--response-size", "1", "--iterations", "1"));
        assertEquals(2, drive("rest", "127.0.0.1:1", "--rest-body", "json", "--payload", "small",
                "--iterations", "1"));
        assertEquals(2, drive("rest", "127.0.0.1:1", "--rest-body", "base64", "--request-size",
                "1", "--response-size", "1", "--iterations", "1"));
    }

    /** --corba-payload string: callString, its text checked by both sides. */
    @Test
    void corbaCallStringChecksTheMappedText() throws Exception {
        try (Child server = serve("corba", "none")) {
            assertEquals(0, drive("corba", server.endpoint, "--corba-payload", "string",
                    "--request-size", "100000", "--response-size", "3000", "--warmup", "2",
                    "--iterations", "5"), lastError);
        }
        try (Child server = serve("corba", "flip-response-byte")) {
            assertEquals(3, drive("corba", server.endpoint, "--corba-payload", "string",
                    "--request-size", "10", "--response-size", "10", "--iterations", "1"));
            assertTrue(lastError.contains("offset 9"), lastError);
        }
        try (Child server = serve("corba", "none", "--seed", "3")) {
            assertEquals(3, drive("corba", server.endpoint, "--corba-payload", "string",
                    "--request-size", "10", "--response-size", "0", "--iterations", "2"));
            assertTrue(lastError.contains("2 corrupted"), lastError);
        }
        assertEquals(7, drive("ice", "127.0.0.1:1", "--corba-payload", "string", "--request-size",
                "1", "--response-size", "1", "--iterations", "1"));
        assertEquals(2, drive("corba", "IOR:00", "--corba-payload", "string", "--void",
                "--request-size", "1", "--iterations", "1"));
        assertTrue(lastError.contains("no void operation"), lastError);
    }

    private String lastError = "";

    private int drive(String mechanism, String endpoint, String... more) {
        InProcessDrive run = InProcessDrive.run(dir, mechanism, endpoint, more);
        lastError = run.error();
        return run.code();
    }

    /** @param more further serve flags (--seed, --nodelay) */
    private Child serve(String mechanism, String fault, String... more) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx1g",
                "--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "serve", "--mechanism", mechanism, "--endpoint", "127.0.0.1:0", "--fault", fault));
        command.addAll(List.of(more));
        Process process = new ProcessBuilder(command)
                .redirectError(dir.resolve("server-" + mechanism + ".err").toFile())
                .start();
        BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (line == null || !line.startsWith("READY {")) {
            process.destroyForcibly();
            throw new AssertionError("READY line: " + line);
        }
        JsonNode ready = MAPPER.readTree(line.substring("READY ".length()));
        assertEquals(mechanism, ready.get("mechanism").asText());
        return new Child(process, ready.get("endpoint").asText(),
                dir.resolve("server-" + mechanism + ".err"));
    }

    /** A server process, ended by stdin EOF (section 5) and expected to exit 0. */
    private record Child(Process process, String endpoint, Path errFile) implements AutoCloseable {
        String err() throws IOException {
            return Files.readString(errFile);
        }

        @Override
        public void close() throws Exception {
            process.getOutputStream().close();
            boolean ended = process.waitFor(20, TimeUnit.SECONDS);
            if (!ended) {
                process.destroyForcibly().waitFor();
            }
            assertTrue(ended, "the server did not end on stdin EOF");
            assertEquals(0, process.exitValue(), err());
        }
    }
}
