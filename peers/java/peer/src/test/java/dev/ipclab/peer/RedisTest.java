package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.LibraryRuns.Run;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.server.Server;
import dev.ipclab.peer.transport.ClientLink;
import dev.ipclab.peer.transport.Endpoints;
import dev.ipclab.peer.transport.RedisEndpoint;
import dev.ipclab.peer.transport.RedisLink;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
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
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.params.ClientKillParams;

/**
 * redis-tcp and redis-uds (PROTOCOL.md 4.10): the responder and the client as clients of one
 * real Redis server per transport for the class, started as the orchestrator starts one
 * ({@link TestBroker#redis}); each test has key names of its own. Sizes up to the limit, a
 * stream past its window (credits), stream faults, the empty answer to a rejected frame, a
 * message of the wrong size, what one frame is on the server, timeouts, a lost connection, the
 * endpoint grammar, a responder process with READY's {@code broker}.
 */
class RedisTest {
    private static final long SECONDS_10 = 10_000_000_000L;

    @TempDir
    static Path serverDir;

    private static TestBroker tcpServer;
    private static TestBroker udsServer;
    /** Each test's key names: NAME:N. */
    private static int names;

    @BeforeAll
    static void startServers() throws Exception {
        tcpServer = TestBroker.redis(serverDir, true);
        udsServer = TestBroker.redis(serverDir, false);
    }

    @AfterAll
    static void stopServers() throws Exception {
        TestBroker.closeAll(tcpServer, udsServer);
    }

    @TempDir
    Path dir;

    @RegisterExtension
    final StartedProcesses started = new StartedProcesses();

    /** The server's endpoint with a key name no other test uses. */
    private static String endpoint(Mechanism mechanism) {
        String base = mechanism == Mechanism.REDIS_TCP ? tcpServer.url : udsServer.url;
        return base + ":" + names++;
    }

    private static ServerHarness responder(Mechanism mechanism, Fault fault) throws Exception {
        return ServerHarness.startAt(mechanism, endpoint(mechanism), fault);
    }

    @Test
    void capabilitiesNameJedis() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new Capabilities().print(new PrintStream(out, true, StandardCharsets.UTF_8));
        JsonNode mechanisms = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8))
                .get("mechanisms");
        assertTrue(RedisLink.library().matches("jedis [0-9]+\\.[0-9]+\\.[0-9]+"),
                RedisLink.library());
        for (String name : List.of("redis-tcp", "redis-uds")) {
            JsonNode entry = mechanisms.get(name);
            assertEquals(RedisLink.library(), entry.get("library").asText());
            assertEquals("[\"serve\",\"drive\"]", entry.get("roles").toString());
            assertEquals("[\"rr\",\"stream\"]", entry.get("patterns").toString());
            assertEquals(Frame.MAX_PAYLOAD, entry.get("max_payload").asInt());
        }
    }

    /** Empty, small, 1 MiB and the largest payload (128 MiB) each way. */
    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({"REDIS_TCP,0,0", "REDIS_UDS,16,16", "REDIS_TCP,1048576,16",
        "REDIS_UDS,16,1048576", "REDIS_TCP,16,134217728", "REDIS_UDS,134217728,16"})
    void roundTripsUpToTheLimit(Mechanism mechanism, int requestSize, int responseSize)
            throws Exception {
        try (ServerHarness server = responder(mechanism, Fault.NONE)) {
            LibraryRuns.assertRoundTrips(dir, server, requestSize, responseSize);
        }
    }

    /**
     * Past the window W(S), so credits flow: 16-byte messages (W 1000, a credit per 500) and
     * 1 MiB ones (W 64, a credit per 32), the warm-up past it too.
     */
    @ParameterizedTest(name = "{0} {1} B x {2}")
    @CsvSource({"REDIS_TCP,16,5003,1200", "REDIS_UDS,1048576,300,70", "REDIS_UDS,1,2500,0"})
    void streamsPastTheWindow(Mechanism mechanism, int size, long messages, long warmup)
            throws Exception {
        try (ServerHarness server = responder(mechanism, Fault.NONE)) {
            LibraryRuns.assertStreams(dir, server, size, messages, warmup, 5);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Fault.class, names = {"DROP_STREAM_MESSAGE", "FLIP_STREAM_BYTE"})
    void aServerThatDropsOrCorruptsAMessageFailsTheStream(Fault fault) throws Exception {
        try (ServerHarness server = responder(Mechanism.REDIS_TCP, fault)) {
            LibraryRuns.assertStreamFaultFails(dir, server, fault);
        }
    }

    /** A rejected frame is answered with an empty element, and the responder goes on. */
    @ParameterizedTest
    @EnumSource(names = {"REDIS_TCP", "REDIS_UDS"})
    void aRejectedFrameIsAnsweredEmptyAndTheResponderGoesOn(Mechanism mechanism)
            throws Exception {
        try (ServerHarness server = responder(mechanism, Fault.NONE)) {
            LibraryRuns.assertRejectedFramesAnsweredEmpty(dir, server);
        }
    }

    /** A message of the wrong size gives up the rest of its MARK's count, which END_ACK shows. */
    @Test
    void aMessageOfTheWrongSizeGivesUpTheCount() throws Exception {
        try (ServerHarness server = responder(Mechanism.REDIS_UDS, Fault.NONE);
                ClientLink link = RedisLink.connect(server.clientEndpoint, false, SECONDS_10,
                        16)) {
            LibraryRuns.assertWrongSizeGivesUpTheCount(server, link);
        }
    }

    /** A frame is one element of NAME:requests holding exactly its bytes (binary-safe). */
    @Test
    void aFrameIsOneElementOfTheRequestsList() throws Exception {
        String endpoint = endpoint(Mechanism.REDIS_TCP);
        String name = endpoint.substring(endpoint.lastIndexOf('/') + 1);
        ByteBuffer frame = new OutgoingFrame(Frame.REQUEST, 1, Payload.REQUEST_STREAM, 300)
                .prepare(7, 3);
        byte[] sent = new byte[frame.remaining()];
        frame.get(0, sent);
        try (Jedis jedis = tcpJedis();
                ClientLink link = Mechanism.REDIS_TCP.connect(endpoint, SECONDS_10)) {
            link.send(frame);
            List<byte[]> popped = jedis.blpop(10, (name + ":requests").getBytes(
                    StandardCharsets.US_ASCII));
            assertArrayEquals(sent, popped.get(1));
            assertEquals(0, jedis.llen(name + ":requests"));
        }
    }

    /** Nobody answering: BLPOP's nil is a timeout; no server at all an io error. */
    @Test
    void silenceIsATimeoutAndNoServerIsAnIoError() throws Exception {
        Run silent = drive(Mechanism.REDIS_UDS, endpoint(Mechanism.REDIS_UDS), "--request-size",
                "16", "--response-size", "16", "--iterations", "1", "--io-timeout", "0.3");
        assertEquals(6, silent.exit(), silent.err());
        assertEquals("timeout", RoundTripTest.result(silent.options()).get("error_kind").asText());
        Run refused = drive(Mechanism.REDIS_TCP, "redis://127.0.0.1:1/x", "--request-size", "16",
                "--response-size", "16", "--iterations", "1");
        assertEquals(5, refused.exit(), refused.err());
        Run missing = drive(Mechanism.REDIS_UDS, "unix://" + dir.resolve("none.sock") + "#x",
                "--request-size", "16", "--response-size", "16", "--iterations", "1");
        assertEquals(5, missing.exit(), missing.err());
        assertTrue(missing.err().contains("cannot connect"), missing.err());
    }

    /** A responder whose connection the server closes ends with the io error's code (5). */
    @Test
    void aResponderThatLosesItsConnectionEndsWithAnIoError() throws Exception {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        Server server = Servers.open(new ServeOptions("redis-tcp", endpoint(Mechanism.REDIS_TCP),
                1, Fault.NONE), err.stream);
        FutureTask<Integer> serving = new FutureTask<>(server::serve);
        Thread.ofPlatform().daemon().start(serving);
        try (Jedis jedis = tcpJedis()) {
            jedis.clientKill(ClientKillParams.clientKillParams().type(ClientType.NORMAL)
                    .skipMe(ClientKillParams.SkipMe.YES));
            assertEquals(5, serving.get(10, TimeUnit.SECONDS), err.text());
            assertTrue(err.text().startsWith("ipclab-peer: io: "), err.text());
        } finally {
            server.close();
        }
    }

    @ParameterizedTest
    @CsvSource({"redis-tcp,redis://127.0.0.1:6379", "redis-tcp,redis://127.0.0.1:0/name",
        "redis-tcp,redis://127.0.0.1:6379/a/b", "redis-uds,unix://relative.sock#name",
        "redis-uds,unix:///tmp/x.sock#", "redis-uds,/tmp/x.sock"})
    void anEndpointOutsideTheGrammarIsAUsageError(String mechanism, String endpoint) {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(2, Main.run(new String[] {"serve", "--mechanism", mechanism, "--endpoint",
            endpoint}, err.stream), err.text());
    }

    /**
     * As the orchestrator runs it, in a process of its own: READY with the endpoint it was
     * given and the server's version as {@code broker}; the end of stdin ends it with exit 0
     * and nothing on stderr.
     */
    @ParameterizedTest
    @EnumSource(names = {"REDIS_TCP", "REDIS_UDS"})
    void aResponderProcessEndsCleanlyAtTheEndOfItsInput(Mechanism mechanism) throws Exception {
        LibraryRuns.assertServerProcessEndsCleanly(dir, started, mechanism, endpoint(mechanism),
                "Redis [0-9]+\\.[0-9]+\\.[0-9]+");
    }

    /** A plain Jedis client of the test's redis-tcp server, to look at what the peers did. */
    private static Jedis tcpJedis() {
        Endpoints.HostPort at = RedisEndpoint.parse(tcpServer.url, true).server();
        return new Jedis(new HostAndPort(at.host(), at.port()));
    }

    private Run drive(ServerHarness server, String... flags) throws Exception {
        return drive(server.mechanism, server.clientEndpoint, flags);
    }

    private Run drive(Mechanism mechanism, String endpoint, String... flags) throws Exception {
        return LibraryRuns.drive(dir, mechanism, endpoint, flags);
    }
}
