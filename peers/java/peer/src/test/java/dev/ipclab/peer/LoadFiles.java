package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.server.Server;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

/**
 * What a load client wrote (PROTOCOL.md 11.5.3), read back by the load tests of every mechanism:
 * {@code records.csv}, {@code samples} and {@code result.json} in one directory, a fixed
 * schedule of C clients at R requests/s over W ms of warm-up and D ms.
 */
final class LoadFiles {
    static final String HEADER = "request,connection,measured,intended_ns,sent_ns,received_ns,error";

    private LoadFiles() {}

    /** A server of this JVM serving on a thread of its own until closed; its stderr kept. */
    record Serving(Server server, FutureTask<Integer> serving, Loopback.Diagnostics diagnostics)
            implements AutoCloseable {
        static Serving start(ServeOptions options) throws PeerException {
            Loopback.Diagnostics diagnostics = new Loopback.Diagnostics();
            Server server = Servers.open(options, diagnostics.stream);
            FutureTask<Integer> serving = new FutureTask<>(server::serve);
            Thread.ofPlatform().daemon().start(serving);
            return new Serving(server, serving, diagnostics);
        }

        String endpoint() {
            return server.endpoint();
        }

        /** Stops it: serve() returns 0, then the endpoint is released. */
        @Override
        public void close() throws Exception {
            server.stop();
            assertEquals(0, serving.get(10, TimeUnit.SECONDS), diagnostics.text());
            server.close();
        }
    }

    /** The drive arguments of such a run, files in {@code dir}. */
    static String[] driveArgs(Path dir, String mechanism, String endpoint, int clients, long rate,
            long warmupMs, long durationMs) {
        return new String[] {"drive", "--pattern", "load", "--mechanism", mechanism, "--endpoint",
            endpoint, "--clients", Integer.toString(clients), "--rate", Long.toString(rate),
            "--duration-ms", Long.toString(durationMs), "--warmup-ms", Long.toString(warmupMs),
            "--request-size", "100", "--response-size", "300", "--io-timeout", "10",
            "--samples-file", dir.resolve("samples").toString(),
            "--records-file", dir.resolve("records.csv").toString(),
            "--result-file", dir.resolve("result.json").toString()};
    }

    /** The records file's rows after its header, each split into its seven fields. */
    static List<String[]> rows(Path dir) throws IOException {
        List<String> lines = Files.readAllLines(dir.resolve("records.csv"));
        assertEquals(HEADER, lines.get(0));
        return lines.subList(1, lines.size()).stream().map(line -> line.split(",", -1)).toList();
    }

    static JsonNode result(Path dir) throws IOException {
        return new ObjectMapper().readTree(dir.resolve("result.json").toFile());
    }

    /** Records, samples and result of one clean run say the same things. */
    static void checkClean(Path dir, int clients, long rate, long warmupMs, long durationMs)
            throws IOException {
        List<String[]> rows = rows(dir);
        long warmup = warmupMs * rate / 1000;
        long measured = durationMs * rate / 1000;
        assertEquals(warmup + measured, rows.size());
        ByteBuffer samples = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("samples")))
                .order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(measured * 8, samples.remaining());
        for (int k = 0; k < warmup + measured; k++) {
            String[] row = rows.get(k);
            String line = String.join(",", row);
            long intended = k * 1_000_000_000L / rate;
            long sent = Long.parseLong(row[4]);
            long received = Long.parseLong(row[5]);
            assertEquals(List.of(Integer.toString(k), Integer.toString(k % clients),
                    k < warmup ? "0" : "1", Long.toString(intended), ""),
                    List.of(row[0], row[1], row[2], row[3], row[6]), line);
            assertTrue(sent >= intended && received > sent, line);
            if (k >= warmup) {
                assertEquals(received - intended, samples.getLong(), "sample of request " + k);
            }
        }
        JsonNode result = result(dir);
        assertEquals("ok", result.get("status").asText());
        assertEquals("load", result.get("pattern").asText());
        assertEquals(measured, result.get("iterations").asLong());
        assertEquals(warmup, result.get("warmup").asLong());
        assertEquals(measured, result.get("samples").asLong());
        assertEquals(measured, result.get("requests_ok").asLong());
        assertEquals(0, result.get("requests_failed").asLong());
        assertEquals(0, result.get("errors").size());
        assertEquals(clients, result.get("clients").asInt());
        assertEquals(rate, result.get("rate").asLong());
        assertEquals("fixed", result.get("arrival").asText());
        assertEquals(durationMs, result.get("duration_ms").asLong());
        assertEquals(warmupMs, result.get("warmup_ms").asLong());
        assertEquals(6, result.get("contract").asInt());
        assertTrue(result.get("achieved_per_s").asDouble() > 0);
        assertTrue(result.get("lateness_p99_ns").asLong() >= 0);
    }
}
