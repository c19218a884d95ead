package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ipclab.peer.LibraryRuns.Run;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.server.Server;
import dev.ipclab.peer.transport.ClientLink;
import dev.ipclab.peer.transport.NatsLink;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.Subscription;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * nats (PROTOCOL.md 4.11): the responder and the client as jnats clients of one real NATS
 * server for the class, started as the orchestrator starts one ({@link TestBroker#nats}); each
 * test has a subject name of its own. Sizes up to the limit (64 MiB less a header) and one byte
 * past it, a stream past its window (credits), stream faults, the empty answer to a rejected
 * frame, a frame without a reply subject, a message of the wrong size, what one frame is on the
 * server, an empty answer, nobody subscribed, silence, a lost server, the endpoint grammar, a
 * responder process with READY's {@code broker}.
 */
class NatsTest {
    private static final long SECONDS_10 = 10_000_000_000L;
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    static Path serverDir;

    private static TestBroker natsServer;
    /** Each test's subject names: NAME:N. */
    private static int names;

    @BeforeAll
    static void startServer() throws Exception {
        natsServer = TestBroker.nats(serverDir, "nats");
    }

    @AfterAll
    static void stopServer() throws Exception {
        TestBroker.closeAll(natsServer);
    }

    @TempDir
    Path dir;

    @RegisterExtension
    final StartedProcesses started = new StartedProcesses();

    /** The server's endpoint with a subject name no other test uses. */
    private static String endpoint() {
        return natsServer.url + ":" + names++;
    }

    /** NAME of an endpoint: what follows its last '/'. */
    private static String name(String endpoint) {
        return endpoint.substring(endpoint.lastIndexOf('/') + 1);
    }

    private static ServerHarness responder(Fault fault) throws Exception {
        return ServerHarness.startAt(Mechanism.NATS, endpoint(), fault);
    }

    @Test
    void capabilitiesNameJnatsAndTheLargestPayload() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new Capabilities().print(new PrintStream(out, true, StandardCharsets.UTF_8));
        JsonNode entry = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8))
                .get("mechanisms").get("nats");
        assertTrue(NatsLink.library().matches("jnats [0-9]+\\.[0-9]+\\.[0-9]+"),
                NatsLink.library());
        assertEquals(NatsLink.library(), entry.get("library").asText());
        assertEquals("[\"serve\",\"drive\"]", entry.get("roles").toString());
        assertEquals("[\"rr\",\"stream\"]", entry.get("patterns").toString());
        assertEquals(64 * 1024 * 1024 - Frame.HEADER_SIZE, entry.get("max_payload").asInt());
    }

    /** Empty, small, 1 MiB and the largest payload (64 MiB less the header) each way. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"0,0", "16,16", "1048576,16", "16,1048576", "67108840,16", "16,67108840"})
    void roundTripsUpToTheLimit(int requestSize, int responseSize) throws Exception {
        try (ServerHarness server = responder(Fault.NONE)) {
            LibraryRuns.assertRoundTrips(dir, server, requestSize, responseSize);
        }
    }

    /** One byte past the largest frame, or past the largest stream message: unsupported. */
    @Test
    void pastTheServersMaxPayloadIsUnsupported() throws Exception {
        String endpoint = endpoint();
        Run frame = drive(endpoint, "--request-size", "67108841", "--response-size", "16",
                "--iterations", "1");
        assertEquals(7, frame.exit(), frame.err());
        Run message = drive(endpoint, "--pattern", "stream", "--message-size", "67108865",
                "--messages", "1");
        assertEquals(7, message.exit(), message.err());
    }

    /**
     * Past the window W(S), so credits flow: 16-byte messages (W 1000, a credit per 500),
     * 1 MiB ones (W 64, a credit per 32), the warm-up past it too, and the largest message
     * (W 1): a credit per message.
     */
    @ParameterizedTest(name = "{0} B x {1}")
    @CsvSource({"16,5003,1200", "1048576,300,70", "1,2500,0", "67108864,3,1"})
    void streamsPastTheWindow(int size, long messages, long warmup) throws Exception {
        try (ServerHarness server = responder(Fault.NONE)) {
            LibraryRuns.assertStreams(dir, server, size, messages, warmup, 3);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Fault.class, names = {"DROP_STREAM_MESSAGE", "FLIP_STREAM_BYTE"})
    void aServerThatDropsOrCorruptsAMessageFailsTheStream(Fault fault) throws Exception {
        try (ServerHarness server = responder(fault)) {
            LibraryRuns.assertStreamFaultFails(dir, server, fault);
        }
    }

    @Test
    void aServerThatFlipsAResponseByteFailsTheClient() throws Exception {
        try (ServerHarness server = responder(Fault.FLIP_RESPONSE_BYTE)) {
            Run run = drive(server, "--request-size", "16", "--response-size", "16",
                    "--iterations", "3");
            assertEquals(3, run.exit(), run.err());
        }
    }

    /** A rejected frame is answered with an empty message, and the responder goes on. */
    @Test
    void aRejectedFrameIsAnsweredEmptyAndTheResponderGoesOn() throws Exception {
        try (ServerHarness server = responder(Fault.NONE)) {
            LibraryRuns.assertRejectedFramesAnsweredEmpty(dir, server);
        }
    }

    /** A message of the wrong size gives up the rest of its MARK's count, which END_ACK shows. */
    @Test
    void aMessageOfTheWrongSizeGivesUpTheCount() throws Exception {
        try (ServerHarness server = responder(Fault.NONE);
                ClientLink link = NatsLink.connect(server.clientEndpoint, SECONDS_10, 16)) {
            LibraryRuns.assertWrongSizeGivesUpTheCount(server, link);
        }
    }

    /**
     * A frame is one message on NAME.requests holding exactly its bytes, no headers, its reply
     * subject the client's inbox; a frame published without one cannot be answered and is
     * dropped with a line, and the responder goes on.
     */
    @Test
    void aFrameIsOneMessageWithTheInboxAsItsReplySubject() throws Exception {
        String endpoint = endpoint();
        ByteBuffer frame = new OutgoingFrame(Frame.REQUEST, 1, Payload.REQUEST_STREAM, 300)
                .prepare(7, 3);
        byte[] sent = new byte[frame.remaining()];
        frame.get(0, sent);
        try (Connection raw = raw(); ClientLink link = Mechanism.NATS.connect(endpoint,
                SECONDS_10)) {
            Subscription requests = raw.subscribe(name(endpoint) + ".requests");
            raw.flush(WAIT);
            link.send(frame);
            Message m = requests.nextMessage(WAIT);
            assertNotNull(m);
            assertArrayEquals(sent, m.getData());
            assertTrue(!m.hasHeaders(), "headers on " + m);
            assertTrue(m.getReplyTo().startsWith("_INBOX."), m.getReplyTo());
        }
        try (ServerHarness server = responder(Fault.NONE); Connection raw = raw()) {
            raw.publish(name(server.clientEndpoint) + ".requests", sent);
            raw.flush(WAIT);
            LibraryRuns.waitFor(server, "no reply-to");
            Run run = drive(server, "--request-size", "16", "--response-size", "16",
                    "--iterations", "5");
            assertEquals(0, run.exit(), run.err());
            assertEquals(List.of("no reply-to"), LibraryRuns.rejections(server));
        }
    }

    /**
     * An empty answer is the protocol error of a rejected frame; nobody subscribed, the server's
     * "no responders" (503), an io error at once; a subscriber that never answers a timeout;
     * no server at all an io error.
     */
    @Test
    void emptyNoRespondersSilenceAndNoServer() throws Exception {
        String empty = endpoint();
        try (Connection raw = raw()) {
            Subscription requests = raw.subscribe(name(empty) + ".requests");
            raw.flush(WAIT);
            CompletableFuture<Void> answering = CompletableFuture.runAsync(() -> {
                try {
                    Message m = requests.nextMessage(WAIT);
                    raw.publish(m.getReplyTo(), new byte[0]);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Run run = drive(empty, "--request-size", "16", "--response-size", "16",
                    "--iterations", "1");
            answering.get(10, TimeUnit.SECONDS);
            assertEquals(4, run.exit(), run.err());
            assertEquals("protocol", RoundTripTest.result(run.options()).get("error_kind")
                    .asText());
        }
        Run nobody = drive(endpoint(), "--request-size", "16", "--response-size", "16",
                "--iterations", "1", "--io-timeout", "5");
        assertEquals(5, nobody.exit(), nobody.err());
        assertTrue(nobody.err().contains("no responder"), nobody.err());
        String silent = endpoint();
        try (Connection raw = raw()) {
            raw.subscribe(name(silent) + ".requests");
            raw.flush(WAIT);
            Run run = drive(silent, "--request-size", "16", "--response-size", "16",
                    "--iterations", "1", "--io-timeout", "0.3");
            assertEquals(6, run.exit(), run.err());
            assertEquals("timeout", RoundTripTest.result(run.options()).get("error_kind")
                    .asText());
        }
        Run refused = drive("nats://127.0.0.1:1/x", "--request-size", "16", "--response-size",
                "16", "--iterations", "1");
        assertEquals(5, refused.exit(), refused.err());
        assertTrue(refused.err().contains("cannot connect"), refused.err());
    }

    /** A responder whose server goes away ends with the io error's code (5). */
    @Test
    void aResponderThatLosesItsServerEndsWithAnIoError() throws Exception {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        TestBroker own = TestBroker.nats(dir, "own-nats");
        Server server;
        try {
            server = Servers.open(new ServeOptions("nats", own.url, 1, Fault.NONE), err.stream);
        } catch (Exception | Error e) {
            own.close();
            throw e;
        }
        FutureTask<Integer> serving = new FutureTask<>(server::serve);
        Thread.ofPlatform().daemon().start(serving);
        try {
            own.close();
            assertEquals(5, serving.get(20, TimeUnit.SECONDS), err.text());
            assertTrue(err.text().startsWith("ipclab-peer: io: "), err.text());
        } finally {
            server.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1:4222", "nats://127.0.0.1:4222", "nats://127.0.0.1:0/n",
        "nats://127.0.0.1:4222/a.b", "nats://127.0.0.1:4222/a b", "nats://127.0.0.1:4222/",
        "redis://127.0.0.1:4222/n"})
    void anEndpointOutsideTheGrammarIsAUsageError(String endpoint) {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(2, Main.run(new String[] {"serve", "--mechanism", "nats", "--endpoint",
            endpoint}, err.stream), err.text());
    }

    /** short and load are not carried over NATS (4.11). */
    @Test
    void shortIsUnsupported() throws Exception {
        Run run = drive(endpoint(), "--pattern", "short", "--request-size", "16",
                "--response-size", "16", "--iterations", "1");
        assertEquals(7, run.exit(), run.err());
    }

    /**
     * As the orchestrator runs it, in a process of its own: READY with the endpoint it was
     * given and the server's version as {@code broker}; the end of stdin ends it with exit 0
     * and nothing on stderr.
     */
    @Test
    void aResponderProcessEndsCleanlyAtTheEndOfItsInput() throws Exception {
        LibraryRuns.assertServerProcessEndsCleanly(dir, started, Mechanism.NATS, endpoint(),
                "NATS [0-9]+\\.[0-9]+\\.[0-9]+");
    }

    /** A plain jnats connection of the test's own to the class's server. */
    private static Connection raw() throws Exception {
        String url = natsServer.url.substring(0, natsServer.url.lastIndexOf('/'));
        return Nats.connect(Options.builder().server(url).maxReconnects(0).build());
    }

    private Run drive(ServerHarness server, String... flags) throws Exception {
        return drive(server.clientEndpoint, flags);
    }

    private Run drive(String endpoint, String... flags) throws Exception {
        return LibraryRuns.drive(dir, Mechanism.NATS, endpoint, flags);
    }
}
