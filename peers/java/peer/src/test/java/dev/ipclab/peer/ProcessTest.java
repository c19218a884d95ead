package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ipclab.peer.server.Loopback;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The peer as the orchestrator sees it: a separate JVM, its stdout, stderr and exit code. */
class ProcessTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final StartedProcesses started = new StartedProcesses();

    @Test
    void sigtermEndsUdsServerCleanlyAndRemovesItsSocket() throws Exception {
        Path socket = dir.resolve("s.sock");
        Process server = start("serve", "--mechanism", "uds", "--endpoint", socket.toString());
        JsonNode ready = readReady(server);
        assertEquals(socket.toString(), ready.get("endpoint").asText());
        assertEquals("uds", ready.get("mechanism").asText());
        assertEquals("java", ready.get("language").asText());
        assertTrue(ready.get("runtime").asText().startsWith("OpenJDK "));
        assertEquals(server.pid(), ready.get("pid").asLong());
        assertTrue(Files.exists(socket));

        server.toHandle().destroy(); // SIGTERM; Process.destroy() would also close our pipes
        assertEquals(0, exitCode(server));
        assertFalse(Files.exists(socket), "socket file left behind");
        assertEquals("", new String(server.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    /** The servers of section 2's frames, pipe aside: a process cannot pass on its ends here. */
    static Stream<Mechanism> framesServedFromAnEndpoint() {
        return RoundTripTest.linkMechanisms().stream().filter(m -> m != Mechanism.PIPE);
    }

    /**
     * Each server as the orchestrator runs it, in a process of its own: SIGTERM right after READY
     * ends it with exit 0 and nothing on stderr, leaving nothing behind (socket file, FIFOs,
     * files, System V or POSIX objects).
     */
    @ParameterizedTest
    @MethodSource("framesServedFromAnEndpoint")
    void sigtermEndsEveryServerCleanly(Mechanism mechanism) throws Exception {
        Path endpointDir = Files.createTempDirectory(dir, "endpoint-");
        Process server = start("serve", "--mechanism", mechanism.label(), "--endpoint",
                ServerHarness.endpoint(mechanism, endpointDir));
        JsonNode ready = readReady(server);
        assertEquals(mechanism.label(), ready.get("mechanism").asText());
        server.toHandle().destroy();
        assertEquals(0, exitCode(server));
        assertEquals("", stderr(server));
        Leftovers.assertNone(mechanism, ready.get("endpoint").asText(), server.pid());
    }

    /**
     * A load server over a message queue (11.5.5) as the orchestrator runs it, its pool blocked
     * on the shared queue after serving this JVM's load client: SIGTERM ends it with exit 0 and
     * nothing on stderr, and neither its queues nor the client's reply queues are left.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sysv-mq", "posix-mq"})
    void sigtermEndsAQueueLoadServerCleanly(String mechanism) throws Exception {
        Process server = start("serve", "--mechanism", mechanism, "--endpoint", "auto",
                "--pattern", "load", "--server-model", "thread-pool", "--workers", "3");
        JsonNode ready = readReady(server);
        assertEquals("thread-pool", ready.get("server_model").asText());
        String endpoint = ready.get("endpoint").asText();
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(0, Main.run(LoadFiles.driveArgs(dir, mechanism, endpoint, 3, 200, 0, 100),
                err.stream), err.text());
        server.toHandle().destroy();
        assertEquals(0, exitCode(server));
        assertEquals("", stderr(server));
        Leftovers.assertNoLoadQueues(mechanism, endpoint, 3);
    }

    @Test
    void stdinEofEndsFifoServerWhileItWaitsInOpen() throws Exception {
        Process server = start("serve", "--mechanism", "fifo", "--endpoint", dir.toString());
        readReady(server);
        assertTrue(Files.exists(dir.resolve("req")) && Files.exists(dir.resolve("resp")));
        server.getOutputStream().close();
        assertEquals(0, exitCode(server));
        try (var left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "FIFOs left behind");
        }
    }

    @Test
    void tcpServerAnswersAnotherProcessThenEndsOnSigint() throws Exception {
        Process server = start("serve", "--mechanism", "tcp", "--endpoint", "127.0.0.1:0");
        String endpoint = readReady(server).get("endpoint").asText();
        assertTrue(endpoint.matches("127\\.0\\.0\\.1:[1-9][0-9]*"), endpoint);
        Process client = start("drive", "--mechanism", "tcp", "--endpoint", endpoint,
                "--request-size", "100", "--response-size", "5000", "--iterations", "20",
                "--warmup", "5", "--samples-file", dir.resolve("s").toString(),
                "--result-file", dir.resolve("r.json").toString());
        assertEquals(0, exitCode(client), stderr(client));
        assertEquals("", new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                "a client writes nothing to stdout");
        assertEquals(160, Files.size(dir.resolve("s")));
        Process interrupt = new ProcessBuilder("kill", "-INT", Long.toString(server.pid())).start();
        started.add(interrupt);
        assertEquals(0, exitCode(interrupt));
        assertEquals(0, exitCode(server));
        assertEquals("", stderr(server));
    }

    @Test
    void existingUdsPathIsAnIoError() throws Exception {
        Path taken = Files.createFile(dir.resolve("taken"));
        Process server = start("serve", "--mechanism", "uds", "--endpoint", taken.toString());
        server.getOutputStream().close(); // stdin EOF at once must not hide the failure as exit 0
        assertEquals(5, exitCode(server));
        String err = stderr(server);
        assertTrue(err.startsWith("ipclab-peer: io: ") && err.contains("path exists"), err);
        assertTrue(Files.exists(taken), "a file the server did not create stays");
    }

    @Test
    void unknownMechanismIsUnsupported() throws Exception {
        Process server = start("serve", "--mechanism", "direct", "--endpoint", "x");
        assertEquals(7, exitCode(server));
        assertTrue(stderr(server).startsWith("ipclab-peer: unsupported: "));
    }

    @Test
    void clientErrorsStillWriteTheResultFile() throws Exception {
        Process refused = drive("tcp", "127.0.0.1:1", "16", "30");
        assertEquals(5, exitCode(refused));
        assertEquals("io", result().get("error_kind").asText());
        assertTrue(stderr(refused).startsWith("ipclab-peer: io: cannot connect"));

        Process tooBig = drive("udp", "127.0.0.1:1", "65484", "30");
        assertEquals(7, exitCode(tooBig));
        assertEquals("unsupported", result().get("error_kind").asText());
        assertEquals(0, Files.size(dir.resolve("s")));
    }

    @Test
    void silentUdpServerIsATimeout() throws Exception {
        try (DatagramChannel silent = DatagramChannel.open()) {
            silent.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            InetSocketAddress address = (InetSocketAddress) silent.getLocalAddress();
            long start = System.nanoTime();
            Process client = drive("udp", "127.0.0.1:" + address.getPort(), "16", "0.3");
            assertEquals(6, exitCode(client));
            assertTrue(System.nanoTime() - start >= 300_000_000L);
            JsonNode result = result();
            assertEquals("timeout", result.get("error_kind").asText());
            assertEquals("error", result.get("status").asText());
        }
    }

    @Test
    void badCommandLineIsUsageWithOneLine() throws Exception {
        Process p = start("drive", "--mechanism", "tcp", "--bogus", "1");
        assertEquals(2, exitCode(p));
        String err = stderr(p);
        assertTrue(err.startsWith("ipclab-peer: usage: unknown flag --bogus"), err);
        assertEquals(1, err.lines().count());
    }

    private Process drive(String mechanism, String endpoint, String size, String timeout) throws IOException {
        return start("drive", "--mechanism", mechanism, "--endpoint", endpoint, "--request-size", size,
                "--response-size", size, "--iterations", "3", "--io-timeout", timeout,
                "--samples-file", dir.resolve("s").toString(),
                "--result-file", dir.resolve("r.json").toString());
    }

    private JsonNode result() throws IOException {
        return new ObjectMapper().readTree(dir.resolve("r.json").toFile());
    }

    /**
     * The peer's main class on this test JVM's class path, as the jar would run it, with SIGINT
     * at its default as a terminal starts a program: a non-interactive shell's {@code make test &}
     * starts everything with SIGINT ignored, and a JVM that starts so never sees a SIGINT.
     */
    private Process start(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("env", "--default-signal=INT",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).start();
        started.add(process);
        return process;
    }

    private static JsonNode readReady(Process server) throws IOException {
        BufferedReader out = new BufferedReader(
                new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertTrue(line != null && line.startsWith("READY {"), "READY line: " + line);
        return new ObjectMapper().readTree(line.substring("READY ".length()));
    }

    private static int exitCode(Process process) throws InterruptedException {
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("process did not exit");
        }
        return process.exitValue();
    }

    private static String stderr(Process process) throws IOException {
        return new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
