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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A private server of the orchestrator's for one test class, started the way the orchestrator
 * starts one for a round: the ActiveMQ broker of PROTOCOL.md 4.7 ({@code python -m
 * ipclab.execute.broker DIR}, its first stdout line the {@code amqp://} URL), the Redis server
 * of 4.10 ({@code python -m ipclab.execute.redis_server tcp|uds DIR}, its first line the
 * responder's endpoint) or the NATS server of 4.11 ({@code python -m
 * ipclab.execute.nats_server DIR}, likewise), stopped with SIGINT, on which the module stops the
 * server and removes its directory. Skipped only where the machine has no such server at all.
 */
final class TestBroker implements AutoCloseable {
    private static final Path LAUNCHER = Path.of("/usr/share/activemq/bin/activemq.jar");
    private static final Path REDIS = Path.of("/usr/bin/redis-server");
    private static final Path NATS = Path.of("/usr/sbin/nats-server");
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
        return start(dir, "broker", "amqp://127.0.0.1:", "ipclab.execute.broker");
    }

    /**
     * A Redis server (4.10); {@link #url} is the responder's endpoint with the name
     * {@code ipclab:test}.
     *
     * @param tcp redis-tcp's server, else redis-uds's
     */
    static TestBroker redis(Path dir, boolean tcp) throws Exception {
        assumeTrue(Files.isExecutable(REDIS), "no redis-server (" + REDIS
                + "): install the Debian package redis-server (make setup) to test Redis");
        return start(dir, tcp ? "redis-tcp" : "redis-uds", tcp ? "redis://127.0.0.1:" : "unix://",
                "ipclab.execute.redis_server", tcp ? "tcp" : "uds");
    }

    /**
     * A NATS server (4.11); {@link #url} is the responder's endpoint with the name
     * {@code ipclab:test}.
     *
     * @param name the server's directory in dir (one per server of the test class)
     */
    static TestBroker nats(Path dir, String name) throws Exception {
        assumeTrue(Files.isExecutable(NATS), "no nats-server (" + NATS
                + "): install the Debian package nats-server (make setup) to test NATS");
        return start(dir, name, "nats://127.0.0.1:", "ipclab.execute.nats_server");
    }

    /**
     * @param name the server's directory in dir (and its stderr's file, NAME.err)
     * @param prefix what the first line must start with
     * @param args the module's arguments before the directory
     */
    private static TestBroker start(Path dir, String name, String prefix, String module,
            String... args) throws Exception {
        Path root = repositoryRoot();
        Path venv = root.resolve(".venv/bin/python");
        String python = Files.isExecutable(venv) ? venv.toString() : "python3";
        List<String> command = new ArrayList<>(List.of("env", "--default-signal=INT", python,
                "-m", module));
        command.addAll(List.of(args));
        command.add(dir.resolve(name).toString());
        Path err = dir.resolve(name + ".err");
        // SIGINT at its default (ProcessTest.start says why): it is how the server is stopped.
        ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(err.toFile()));
        builder.environment().put("PYTHONPATH", root.resolve("orchestrator/src").toString());
        Process process = builder.start();
        try {
            String url = firstLine(process, err);
            assertTrue(url.startsWith(prefix), url);
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

    private static String firstLine(Process process, Path err) throws Exception {
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
            assertNotNull(url, () -> "the server's module ended without a URL: " + log(err));
            return url;
        } catch (TimeoutException e) {
            throw new AssertionError("no server URL within " + START_SECONDS + " s: " + log(err),
                    e);
        }
    }

    private static String log(Path err) {
        try {
            return Files.readString(err);
        } catch (IOException e) {
            return "(no " + err + ": " + e.getMessage() + ")";
        }
    }

    /** Closes each of a test class's servers that started (null: one that did not), in order. */
    static void closeAll(TestBroker... servers) throws Exception {
        for (TestBroker server : servers) {
            if (server != null) {
                server.close();
            }
        }
    }

    /** SIGINT: the module stops the server (SIGTERM, then SIGKILL) and removes its directory. */
    @Override
    public void close() throws Exception {
        new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start().waitFor();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
