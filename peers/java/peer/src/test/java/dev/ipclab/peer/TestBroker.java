package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The ActiveMQ broker of PROTOCOL.md 4.7 for one test class, started the way the orchestrator
 * starts one for a round ({@code python -m ipclab.execute.broker DIR}, its first stdout line the
 * {@code amqp://} URL) and stopped with SIGINT, on which that module stops the broker and removes
 * its directory. Skipped only where the machine has no ActiveMQ at all.
 */
final class TestBroker implements AutoCloseable {
    private static final Path LAUNCHER = Path.of("/usr/share/activemq/bin/activemq.jar");
    /** A JVM and Spring on a busy 2-vCPU machine: 5-20 s; the module itself waits up to 90. */
    private static final long START_SECONDS = 120;

    final String url;
    private final Process process;

    private TestBroker(Process process, String url) {
        this.process = process;
        this.url = url;
    }

    /** @param dir a directory of the test class's own; the broker's is made inside it */
    static TestBroker start(Path dir) throws Exception {
        assumeTrue(Files.isRegularFile(LAUNCHER), "no ActiveMQ (" + LAUNCHER
                + "): install the Debian package activemq (make setup) to test activemq");
        Path root = repositoryRoot();
        Path venv = root.resolve(".venv/bin/python");
        String python = Files.isExecutable(venv) ? venv.toString() : "python3";
        // SIGINT at its default (ProcessTest.start says why): it is how the broker is stopped.
        ProcessBuilder builder = new ProcessBuilder("env", "--default-signal=INT", python, "-m",
                "ipclab.execute.broker", dir.resolve("broker").toString()).directory(root.toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(
                        dir.resolve("broker.err").toFile()));
        builder.environment().put("PYTHONPATH", root.resolve("orchestrator/src").toString());
        Process process = builder.start();
        try {
            String url = firstLine(process, dir);
            assertTrue(url.startsWith("amqp://127.0.0.1:"), url);
            return new TestBroker(process, url);
        } catch (Exception | Error e) {
            process.destroyForcibly().waitFor();
            throw e;
        }
    }

    /** The checkout: the first directory above this module with protocol/PROTOCOL.md. */
    private static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("protocol/PROTOCOL.md"))) {
                return p;
            }
        }
        throw new AssertionError("no ipclab checkout above " + Path.of("").toAbsolutePath());
    }

    private static String firstLine(Process process, Path dir) throws Exception {
        BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            String url = line.get(START_SECONDS, TimeUnit.SECONDS);
            assertNotNull(url, () -> "the broker module ended without a URL: " + log(dir));
            return url;
        } catch (TimeoutException e) {
            throw new AssertionError("no broker URL within " + START_SECONDS + " s: " + log(dir),
                    e);
        }
    }

    private static String log(Path dir) {
        try {
            return Files.readString(dir.resolve("broker.err"));
        } catch (IOException e) {
            return "(no broker.err: " + e.getMessage() + ")";
        }
    }

    /** SIGINT: the module stops the broker (SIGTERM, then SIGKILL) and removes its directory. */
    @Override
    public void close() throws Exception {
        new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start().waitFor();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
