package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ipclab.linuxipc.PosixMessageQueue;
import dev.ipclab.linuxipc.SysVMessageQueue;
import dev.ipclab.peer.burst.BurstOptions;
import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.transport.SysVKeys;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pattern load over the message queues (PROTOCOL.md 11.5.5): the Java client against the Java
 * queue server of each model, the records as tcp's, the checks of a request message, the
 * refusals, and no queue left once both sides have ended.
 */
class QueueLoadTest {
    private static final int CLIENTS = 3;
    private static final long RATE = 200;
    private static final long WARMUP_MS = 50;
    private static final long DURATION_MS = 300;
    private static final List<String> QUEUES = List.of("sysv-mq", "posix-mq");

    @TempDir
    Path dir;

    static Stream<Arguments> queuesAndModels() {
        return QUEUES.stream().flatMap(q -> Stream.of(Arguments.of(q, "iterative"),
                Arguments.of(q, "thread-pool")));
    }

    @ParameterizedTest
    @MethodSource("queuesAndModels")
    void eachQueueAndModelServesAScheduleWhoseFilesAgree(String mechanism, String model)
            throws Exception {
        String endpoint = run(mechanism, model, driveArgs(mechanism, null));
        LoadFiles.checkClean(dir, CLIENTS, RATE, WARMUP_MS, DURATION_MS);
        Leftovers.assertNoLoadQueues(mechanism, endpoint, CLIENTS);
    }

    /**
     * The largest request that is one message, and a response of many messages: more than a
     * posix reply queue holds (10), so its sender waits for the reader; sysv's blocks likewise.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sysv-mq", "posix-mq"})
    void theLargestRequestAndAResponseOfManyMessages(String mechanism) throws Exception {
        String[] args = CliTest.replace(CliTest.replace(driveArgs(mechanism, null),
                "--request-size", "8168"), "--response-size", "100000");
        String endpoint = run(mechanism, "thread-pool", args);
        LoadFiles.checkClean(dir, CLIENTS, RATE, WARMUP_MS, DURATION_MS);
        Leftovers.assertNoLoadQueues(mechanism, endpoint, CLIENTS);
    }

    /** Serves one schedule of the Java client; returns the server's endpoint. */
    private String run(String mechanism, String model, String[] args) throws Exception {
        try (LoadFiles.Serving server = serve(mechanism, model)) {
            args[indexOf(args, "--endpoint") + 1] = server.endpoint();
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(0, Main.run(args, err.stream), err.text() + server.diagnostics().text());
            assertEquals("", server.diagnostics().text());
            return server.endpoint();
        }
    }

    private static LoadFiles.Serving serve(String mechanism, String model) throws PeerException {
        return LoadFiles.Serving.start(new ServeOptions(mechanism, "auto", 1, Fault.NONE,
                Mechanism.DEFAULT_POLL_INTERVAL_NANOS, Mechanism.DEFAULT_SPIN_NANOS,
                BurstOptions.load(model, BurstOptions.DEFAULT_WORKERS, true), true));
    }

    private String[] driveArgs(String mechanism, String endpoint) {
        return LoadFiles.driveArgs(dir, mechanism, endpoint, CLIENTS, RATE, WARMUP_MS,
                DURATION_MS);
    }

    private static int indexOf(String[] args, String flag) {
        return java.util.Arrays.asList(args).indexOf(flag);
    }

    /** A REQUEST is one message: 8169 payload bytes do not fit, checked before anything is made. */
    @ParameterizedTest
    @ValueSource(strings = {"sysv-mq", "posix-mq"})
    void aRequestOverOneMessageIsUnsupported(String mechanism) throws Exception {
        String endpoint = mechanism.equals("sysv-mq") ? "sysv:0x1c1a0001,0x1c1a8001"
                : "posix:/ipclab-" + ProcessHandle.current().pid();
        String[] args = CliTest.replace(driveArgs(mechanism, endpoint), "--request-size", "8169");
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(7, Main.run(args, err.stream), err.text());
        assertTrue(err.text().contains("at most 8168"), err.text());
        assertEquals("unsupported", LoadFiles.result(dir).get("error_kind").asText());
        if (mechanism.equals("posix-mq")) {
            Leftovers.assertNoLoadQueues(mechanism, endpoint, CLIENTS);
        }
    }

    /**
     * Messages that are no request of this pattern are dropped with a line each, unanswered, and
     * the server goes on: a schedule after them is clean (a stray answer would break it).
     */
    @ParameterizedTest
    @ValueSource(strings = {"sysv-mq", "posix-mq"})
    void badRequestMessagesAreRejectedAndTheServerGoesOn(String mechanism) throws Exception {
        List<byte[]> bad = List.of(request(Frame.REQUEST, 0, 16, 0),
                request(Frame.REQUEST, 1, 16, 0), request(Frame.REQUEST, 0x8400, 16, 0), request(Frame.END, 0, 0, 0),
                request(Frame.MARK, 0x8000, 16, 0), request(Frame.REQUEST, 0x8000, 16, 1),
                new byte[10]);
        List<String> reasons = List.of("bad flags", "bad flags", "bad flags", "bad flags",
                "unexpected kind", "length mismatch", "truncated header");
        try (LoadFiles.Serving server = serve(mechanism, "iterative")) {
            for (byte[] message : bad) {
                sendRequest(mechanism, server.endpoint(), message);
            }
            List<String> lines = new ArrayList<>();
            for (String reason : reasons) {
                lines.add("ipclab-peer: rejected frame: " + reason);
            }
            awaitLines(server.diagnostics(), lines.size());
            assertEquals(lines, server.diagnostics().text().lines().toList());
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            String[] args = driveArgs(mechanism, server.endpoint());
            assertEquals(0, Main.run(args, err.stream), err.text());
        }
        LoadFiles.checkClean(dir, CLIENTS, RATE, WARMUP_MS, DURATION_MS);
    }

    /**
     * posix-mq: an answer with no reply queue to go to, or to a full one, is dropped with one
     * line; a reply queue the server opened is unlinked when it ends.
     */
    @Test
    void posixAnswersThatCannotBeDeliveredAreDropped() throws Exception {
        String name;
        try (LoadFiles.Serving server = serve("posix-mq", "iterative")) {
            name = server.endpoint().substring("posix:".length());
            sendRequest("posix-mq", server.endpoint(), request(Frame.REQUEST, 0x8007, 16, 0));
            try (PosixMessageQueue full = PosixMessageQueue.create(name + "-r8",
                    PosixMessageQueue.O_RDONLY, 1, 64, 0600)) {
                sendRequest("posix-mq", server.endpoint(), request(Frame.REQUEST, 0x8008, 16, 0));
                sendRequest("posix-mq", server.endpoint(), request(Frame.REQUEST, 0x8008, 16, 0));
                awaitLines(server.diagnostics(), 2);
                List<String> lines = server.diagnostics().text().lines().toList();
                assertTrue(lines.get(0).startsWith("ipclab-peer: answer to " + name
                        + "-r7 dropped: cannot open it"), lines.get(0));
                assertEquals("ipclab-peer: answer to " + name + "-r8 dropped: the queue is full",
                        lines.get(1));
                assertEquals(1, full.attributes().currentMessages());
            }
        }
        Leftovers.assertNoLoadQueues("posix-mq", "posix:" + name, 9);
    }

    /**
     * posix-mq: a client of number c that timed out sent no END, so the server still holds its
     * reply queue, unlinked and full; the next client of that number made a new one under the
     * same name, which the server opens again instead of dropping every answer.
     */
    @Test
    void posixReplyQueueOfALaterClientIsOpenedAgain() throws Exception {
        try (LoadFiles.Serving server = serve("posix-mq", "iterative")) {
            String reply = server.endpoint().substring("posix:".length()) + "-r4";
            byte[] request = request(Frame.REQUEST, 0x8004, 16, 0);
            try (PosixMessageQueue old = PosixMessageQueue.create(reply,
                    PosixMessageQueue.O_RDONLY, 1, 64, 0600)) {
                sendRequest("posix-mq", server.endpoint(), request);
                awaitMessages(old, 1);
                PosixMessageQueue.unlink(reply);
            }
            try (PosixMessageQueue later = PosixMessageQueue.create(reply,
                    PosixMessageQueue.O_RDONLY, 1, 64, 0600)) {
                sendRequest("posix-mq", server.endpoint(), request);
                awaitMessages(later, 1);
                PosixMessageQueue.unlink(reply);
            }
            assertEquals("", server.diagnostics().text());
        }
    }

    private static void awaitMessages(PosixMessageQueue queue, long n) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (queue.attributes().currentMessages() < n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(n, queue.attributes().currentMessages());
    }

    /**
     * END_ACK counts the whole server's corrupted requests since the previous END, whichever
     * connection sent them (11.5.5): three of connection 0's, reported to connection 1's END;
     * connection 0's END after it reports none.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sysv-mq", "posix-mq"})
    void endAckCountsTheWholeServersCorruptedRequests(String mechanism) throws Exception {
        try (LoadFiles.Serving server = serve(mechanism, "thread-pool");
                RawClient zero = new RawClient(mechanism, server.endpoint(), 0);
                RawClient one = new RawClient(mechanism, server.endpoint(), 1)) {
            for (int k = 0; k < 3; k++) {
                sendRequest(mechanism, server.endpoint(), request(Frame.REQUEST, 0x8000, 16, 0));
                assertEquals(Frame.RESPONSE, Frame.kind(zero.receive()));
            }
            sendRequest(mechanism, server.endpoint(), request(Frame.END, 0x8001, 0, 0));
            assertEquals(3, one.receive().getLong(Frame.HEADER_SIZE));
            sendRequest(mechanism, server.endpoint(), request(Frame.END, 0x8000, 0, 0));
            assertEquals(0, zero.receive().getLong(Frame.HEADER_SIZE));
            assertEquals("", server.diagnostics().text());
        }
    }

    /** Connection c's reply address read by hand: one message per answer (all are short). */
    private static final class RawClient implements AutoCloseable {
        private final SysVMessageQueue sysv;
        private final PosixMessageQueue posix;
        private final long type;

        RawClient(String mechanism, String endpoint, int c) throws Exception {
            boolean isSysv = mechanism.equals("sysv-mq");
            sysv = isSysv ? SysVMessageQueue.open(SysVKeys.parsePair(endpoint)[1]) : null;
            posix = isSysv ? null : PosixMessageQueue.create(endpoint.substring("posix:".length())
                    + "-r" + c, PosixMessageQueue.O_RDONLY, 1, 64, 0600);
            type = 2 + c;
        }

        ByteBuffer receive() throws Exception {
            byte[] bytes = sysv != null ? sysv.receive(type, 8192) : posix.receive();
            return ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        }

        @Override
        public void close() throws Exception {
            if (posix != null) {
                posix.close();
                PosixMessageQueue.unlink(posix.name());
            }
        }
    }

    /** A REQUEST or END message of size 24 + length + extra; payload bytes are all zero. */
    private static byte[] request(byte kind, int flags, int length, int extra) {
        ByteBuffer frame = Frame.allocate(Frame.HEADER_SIZE + length + extra);
        Frame.writeHeader(frame, kind, 0, length, kind == Frame.REQUEST ? 16 : 0);
        Frame.setFlags(frame, (short) flags);
        byte[] bytes = new byte[frame.capacity()];
        frame.get(0, bytes);
        return bytes;
    }

    private static void sendRequest(String mechanism, String endpoint, byte[] message)
            throws Exception {
        if (mechanism.equals("sysv-mq")) {
            SysVMessageQueue.open(SysVKeys.parsePair(endpoint)[0]).send(1, message);
            return;
        }
        String name = endpoint.substring("posix:".length()) + "-1";
        try (PosixMessageQueue q = PosixMessageQueue.open(name, PosixMessageQueue.O_WRONLY)) {
            q.send(message, 0);
        }
    }

    /** The server answers on its own thread: its lines come when they come (10 s at most). */
    private static void awaitLines(Loopback.Diagnostics diagnostics, int n)
            throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (diagnostics.text().lines().count() < n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sysv-mq", "posix-mq"})
    void otherModelsAndTheSocketFlagsAreUnsupported(String mechanism) throws Exception {
        String[] base = {"serve", "--mechanism", mechanism, "--endpoint", "auto", "--pattern",
            "load", "--server-model", "thread-pool"};
        for (String[] args : List.of(CliTest.replace(base, "--server-model", "thread"),
                CliTest.replace(base, "--server-model", "nio"),
                LoadTest.concat(base, "--backlog", "10"), LoadTest.concat(base, "--nodelay", "on"),
                LoadTest.concat(base, "--nodelay", "off"),
                LoadTest.concat(base, "--fault", "flip-response-byte"),
                LoadTest.concat(base, "--fault", "stall"))) {
            ServeOptions options = (ServeOptions) Cli.parse(args);
            PeerException e = assertThrows(PeerException.class,
                    () -> Servers.open(options, new Loopback.Diagnostics().stream),
                    String.join(" ", args));
            assertEquals(ErrorKind.UNSUPPORTED, e.kind(), e.getMessage());
        }
        ServeOptions workers = (ServeOptions) Cli.parse(LoadTest.concat(base, "--workers", "3"));
        try (var server = Servers.open(workers, new Loopback.Diagnostics().stream)) {
            assertEquals("thread-pool", server.serverModel());
            server.stop();
        }
    }

    @Test
    void usageErrors() {
        String[] sysv = driveArgs("sysv-mq", "sysv:0x1c1a0001");
        assertThrows(UsageException.class, () -> Cli.parse(sysv));
        assertThrows(UsageException.class, () -> Cli.parse(CliTest.replace(sysv, "--endpoint",
                "sysv:0x1c1a0001,nothex")));
        assertThrows(UsageException.class, () -> Cli.parse(new String[] {"serve", "--mechanism",
            "posix-mq", "--endpoint", "auto", "--pattern", "load", "--server-model", "iterative",
            "--connections", "3"}));
        // rr keeps the one-key endpoint: the pair is load's.
        assertThrows(UsageException.class, () -> Cli.parse(new String[] {"drive", "--mechanism",
            "sysv-mq", "--endpoint", "sysv:0x1c1a0001,0x1c1a8001", "--request-size", "1",
            "--response-size", "1", "--iterations", "1", "--samples-file", "/tmp/s",
            "--result-file", "/tmp/r"}));
    }

    @Test
    void capabilitiesListLoadForBothQueues() {
        for (String queue : QUEUES) {
            Capabilities.Entry entry = Capabilities.answer().mechanisms().get(queue);
            assertTrue(entry.patterns().contains("load"), queue);
            assertEquals(List.of("iterative", "thread-pool"), entry.loadModels(), queue);
        }
    }
}
