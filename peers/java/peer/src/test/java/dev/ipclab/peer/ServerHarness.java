package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.ipclab.linuxipc.LinuxIpc;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.server.Server;
import dev.ipclab.peer.transport.Fifo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A real server of one mechanism on a thread of the test JVM, stopped and checked on close. */
final class ServerHarness implements AutoCloseable {
    private static final String SOCKET = "server.sock";

    final Mechanism mechanism;
    final Server server;
    final Loopback.Diagnostics diagnostics;
    /** What a client passes as --endpoint (for pipe: the other ends of the two pipes). */
    final String clientEndpoint;
    private final Path createdFile;
    private final NativePipe requests;
    private final NativePipe responses;
    private final FutureTask<Integer> serving;

    private ServerHarness(Mechanism mechanism, Server server, Loopback.Diagnostics diagnostics,
            String clientEndpoint, Path createdFile, NativePipe requests, NativePipe responses) {
        this.mechanism = mechanism;
        this.server = server;
        this.diagnostics = diagnostics;
        this.clientEndpoint = clientEndpoint;
        this.createdFile = createdFile;
        this.requests = requests;
        this.responses = responses;
        this.serving = new FutureTask<>(server::serve);
        Thread.ofPlatform().daemon().name("test-server-" + mechanism.label()).start(serving);
    }

    /** @param testDir a directory of the test's own; the endpoint gets a fresh 0700 one inside */
    static ServerHarness start(Mechanism mechanism, Path testDir, boolean flip) throws Exception {
        return start(mechanism, testDir, flip ? Fault.FLIP_RESPONSE_BYTE : Fault.NONE);
    }

    static ServerHarness start(Mechanism mechanism, Path testDir, Fault fault) throws Exception {
        return start(mechanism, testDir, fault, 0, 0);
    }

    /** With the serve flags of contract 6: --backlog (0: not given) and --read-size. */
    static ServerHarness start(Mechanism mechanism, Path testDir, Fault fault, int backlog,
            int readSize) throws Exception {
        Path dir = Files.createTempDirectory(testDir, "endpoint-");
        Loopback.Diagnostics diagnostics = new Loopback.Diagnostics();
        NativePipe requests = null;
        NativePipe responses = null;
        String endpoint;
        Path created = switch (mechanism) {
            case UDS, UDS_DGRAM, ZMQ_IPC, NNG_IPC -> dir.resolve(SOCKET);
            case FIFO -> dir.resolve(Fifo.REQUEST);
            default -> null;
        };
        if (mechanism == Mechanism.PIPE) {
            requests = new NativePipe();
            responses = new NativePipe();
            endpoint = "fd:" + requests.read + "," + responses.write;
        } else {
            endpoint = endpoint(mechanism, dir);
        }
        Server server = open(mechanism, endpoint, fault, backlog, readSize, diagnostics);
        String clientEndpoint = mechanism == Mechanism.PIPE
                ? "fd:" + responses.read + "," + requests.write : server.endpoint();
        return new ServerHarness(mechanism, server, diagnostics, clientEndpoint, created, requests,
                responses);
    }

    /** At an endpoint the test has (a responder of a Redis server's, 4.10). */
    static ServerHarness startAt(Mechanism mechanism, String endpoint, Fault fault)
            throws Exception {
        Loopback.Diagnostics diagnostics = new Loopback.Diagnostics();
        Server server = open(mechanism, endpoint, fault, 0, 0, diagnostics);
        return new ServerHarness(mechanism, server, diagnostics, server.endpoint(), null, null,
                null);
    }

    private static Server open(Mechanism mechanism, String endpoint, Fault fault, int backlog,
            int readSize, Loopback.Diagnostics diagnostics) throws Exception {
        return Servers.open(new ServeOptions(mechanism.label(), endpoint, 1, fault,
                Mechanism.DEFAULT_POLL_INTERVAL_NANOS, Mechanism.DEFAULT_SPIN_NANOS, null, true,
                LinuxIpc.Binding.FFM, null, backlog, readSize), diagnostics.stream);
    }

    /**
     * A server endpoint of this mechanism (not pipe, whose ends the test makes).
     *
     * @param dir a fresh 0700 directory of the test's own
     */
    static String endpoint(Mechanism mechanism, Path dir) {
        return switch (mechanism) {
            case TCP, UDP, SOAP, ZMQ_TCP, NNG_TCP -> "127.0.0.1:0";
            case UDS, UDS_DGRAM, ZMQ_IPC, NNG_IPC -> dir.resolve(SOCKET).toString();
            case FIFO, FILE, FILE_POLL -> dir.toString();
            case SYSV_MQ, POSIX_MQ, SYSV_SHM, SHM, SHM_SPIN, SHM_FUTEX -> "auto";
            default -> throw new IllegalArgumentException(mechanism.toString());
        };
    }

    /** Stops the server the way each mechanism allows and checks it ended cleanly, files gone. */
    @Override
    public void close() {
        try {
            stop();
            assertEquals(0, serving.get(10, TimeUnit.SECONDS), diagnostics.text());
        } catch (ExecutionException e) {
            throw new AssertionError("the server failed", e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError("the server did not stop", e);
        } finally {
            server.close();
        }
        if (createdFile != null) {
            assertFalse(Files.exists(createdFile), createdFile + " left behind");
        }
    }

    private void stop() throws ExecutionException, InterruptedException {
        switch (mechanism) {
            // The test's copies are the last write end of the request pipe: closing them is
            // the end of stream that ends a pipe server.
            case PIPE -> {
                requests.close();
                responses.close();
            }
            case FIFO -> {
                server.stop();
                wakeFifoServer();
            }
            default -> server.stop();
        }
    }

    /**
     * A thread blocked opening a FIFO cannot be interrupted, so the test plays one empty client:
     * non-blocking opens never hang, whatever the server thread is doing, and are retried until
     * the server has seen the stop. The resp reader stays open until then, so that the server's
     * open of resp for writing cannot block either.
     */
    private void wakeFifoServer() throws ExecutionException, InterruptedException {
        Path dir = Path.of(clientEndpoint);
        java.util.List<Integer> readers = new java.util.ArrayList<>();
        try {
            while (!serving.isDone()) {
                readers.add(Fds.open(dir.resolve(Fifo.RESPONSE), Fds.O_RDONLY | Fds.O_NONBLOCK));
                int writer = Fds.open(dir.resolve(Fifo.REQUEST), Fds.O_WRONLY | Fds.O_NONBLOCK);
                if (writer >= 0) {
                    Fds.close(writer);
                }
                try {
                    serving.get(50, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    // Not yet: the server was between two opens; try again.
                }
            }
        } finally {
            for (int fd : readers) {
                if (fd >= 0) {
                    Fds.close(fd);
                }
            }
        }
    }
}
