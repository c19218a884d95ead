package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.server.Server;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * --nodelay off (section 1): tcp in every pattern against a tcp server that leaves Nagle on;
 * every mechanism or library that cannot keep Nagle on says unsupported. (rest and grpc: RpcTest.)
 */
class NoDelayTest {
    @TempDir
    Path dir;

    private final Loopback.Diagnostics err = new Loopback.Diagnostics();

    @Test
    void tcpWithNagleOnServesRrShortOneWayAndStream() throws Exception {
        Server server = Servers.open(new ServeOptions("tcp", "127.0.0.1:0", 1, Fault.NONE,
                Mechanism.DEFAULT_POLL_INTERVAL_NANOS, Mechanism.DEFAULT_SPIN_NANOS, null, false),
                err.stream);
        FutureTask<Integer> serving = new FutureTask<>(server::serve);
        Thread.ofPlatform().daemon().start(serving);
        try (server) {
            String endpoint = server.endpoint();
            assertEquals(0, drive("tcp", endpoint, "--request-size", "100", "--response-size", "100",
                    "--warmup", "5", "--iterations", "50"), err.text());
            assertEquals(0, drive("tcp", endpoint, "--pattern", "short", "--request-size", "100",
                    "--response-size", "100", "--iterations", "50"), err.text());
            assertEquals(0, drive("tcp", endpoint, "--pattern", "short", "--one-way",
                    "--request-size", "100", "--iterations", "50"), err.text());
            assertEquals(0, drive("tcp", endpoint, "--pattern", "stream", "--message-size", "100",
                    "--messages", "1000"), err.text());
            server.stop();
            assertEquals(0, serving.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void offIsUnsupportedWhereNagleCannotStayOn() {
        assertEquals(7, drive("uds", "/nonexistent/s", "--request-size", "1", "--response-size",
                "1", "--iterations", "1"));
        assertTrue(err.text().contains("--nodelay off is for tcp, rest and grpc only"), err.text());
        assertEquals(7, drive("thrift-binary", "127.0.0.1:1", "--request-size", "1",
                "--response-size", "1", "--iterations", "1"));
        assertEquals(7, drive("rest", "127.0.0.1:1", "--http-client", "jdk", "--request-size", "1",
                "--response-size", "1", "--iterations", "1"));
        assertTrue(err.text().contains("java.net.http"), err.text());
        assertEquals(7, Main.run(new String[] {"serve", "--mechanism", "udp", "--endpoint",
            "127.0.0.1:0", "--nodelay", "off"}, err.stream));
        assertEquals(2, Main.run(new String[] {"serve", "--mechanism", "tcp", "--endpoint",
            "127.0.0.1:0", "--nodelay", "no"}, err.stream));
    }

    /** drive --nodelay off with the given flags. */
    private int drive(String mechanism, String endpoint, String... more) {
        List<String> all = new ArrayList<>(List.of("drive", "--mechanism", mechanism, "--endpoint",
                endpoint, "--samples-file", dir.resolve("s").toString(), "--result-file",
                dir.resolve("r.json").toString(), "--nodelay", "off"));
        all.addAll(List.of(more));
        return Main.run(all.toArray(String[]::new), err.stream);
    }
}
