package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ipclab.linuxipc.UnixDatagramSocket;
import dev.ipclab.peer.burst.BurstOptions;
import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.transport.Udp;
import dev.ipclab.peer.transport.UdsDgram;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What contract 5 added, at contract 6: capabilities, READY's and the result's contract, warm-up
 * samples, uds-dgram.
 */
class ContractTest {
    @TempDir
    Path dir;

    @Test
    void capabilitiesAnswerEveryMechanismOfTheTable() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, new Capabilities().print(new PrintStream(out, true, StandardCharsets.UTF_8)));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(1, text.lines().count());
        JsonNode answer = new ObjectMapper().readTree(text);
        assertEquals(6, answer.get("contract").asInt());
        assertEquals("java", answer.get("language").asText());
        assertEquals(PeerInfo.RUNTIME, answer.get("runtime").asText());
        JsonNode mechanisms = answer.get("mechanisms");
        assertEquals(Mechanism.values().length, mechanisms.size());
        assertEquals("[\"serve\",\"drive\"]", mechanisms.get("tcp").get("roles").toString());
        assertEquals("[\"drive\"]", mechanisms.get("ffm").get("roles").toString());
        assertEquals("[\"rr\",\"load\"]", mechanisms.get("corba").get("patterns").toString());
        assertEquals("[\"poa-thread-pool\"]", mechanisms.get("corba").get("load_models").toString());
        assertEquals(Udp.MAX_PAYLOAD, mechanisms.get("udp").get("max_payload").asInt());
        assertEquals(Frame.MAX_PAYLOAD, mechanisms.get("grpc").get("max_payload").asInt());
        int largest = UnixDatagramSocket.largestDatagram();
        assertEquals(largest - Frame.HEADER_SIZE, mechanisms.get("uds-dgram").get("max_payload").asInt());
    }

    @Test
    void capabilitiesTakesNoArguments() {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(2, Main.run(new String[] {"capabilities", "--mechanism", "tcp"}, err.stream));
        assertTrue(err.text().startsWith("ipclab-peer: usage: "), err.text());
    }

    @Test
    void readyCarriesTheContract() throws Exception {
        JsonNode ready = new ObjectMapper().readTree(
                Ready.of("127.0.0.1:1", "tcp").line().substring("READY ".length()));
        assertEquals(6, ready.get("contract").asInt());
    }

    @Test
    void warmUpRoundTripsAreTimedIntoTheirOwnFile() throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.TCP, dir, false)) {
            for (long warmup : List.of(0L, 5L)) {
                DriveOptions options = withWarmup(RoundTripTest.options(server, dir, 16, 16), warmup);
                Loopback.Diagnostics err = new Loopback.Diagnostics();
                assertEquals(0, new Client(options, err.stream).run(), err.text());
                JsonNode result = RoundTripTest.result(options);
                assertEquals(6, result.get("contract").asInt());
                assertEquals(warmup, result.get("warmup_samples").asLong());
                assertEquals(warmup * 8, Files.size(options.warmupSamplesFile()));
                assertEquals(options.iterations() * 8, Files.size(options.samplesFile()));
            }
        }
    }

    @Test
    void withoutTheFlagNoWarmUpSamplesAreCounted() throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.TCP, dir, false)) {
            DriveOptions options = RoundTripTest.options(server, dir, 16, 16);
            assertEquals(0, new Client(options, new Loopback.Diagnostics().stream).run());
            assertEquals(0, RoundTripTest.result(options).get("warmup_samples").asLong());
        }
    }

    @Test
    void aWarmUpThatFailsValidationIsNoSample() throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.TCP, dir, true)) {
            DriveOptions options = withWarmup(RoundTripTest.options(server, dir, 16, 16), 3);
            assertEquals(3, new Client(options, new Loopback.Diagnostics().stream).run());
            assertEquals(0, Files.size(options.warmupSamplesFile()));
            assertEquals(0, RoundTripTest.result(options).get("warmup_samples").asLong());
        }
    }

    @Test
    void udsDgramServerRejectsBadDatagramsAndServesTheNextClient() throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.UDS_DGRAM, dir, false);
                Arena arena = Arena.ofConfined();
                UnixDatagramSocket bad = UnixDatagramSocket.open()) {
            Path own = dir.resolve("bad.sock");
            bad.bind(own, 0600);
            bad.connect(Path.of(server.clientEndpoint));
            MemorySegment datagram = arena.allocate(64);
            bad.send(datagram, 10);
            NewMechanismsTest.waitFor(() -> server.diagnostics.text().contains("truncated header"));
            ByteBuffer header = Frame.allocate(Frame.HEADER_SIZE);
            Frame.writeHeader(header, Frame.REQUEST, 0, 5, 0);
            MemorySegment.copy(MemorySegment.ofBuffer(header), 0, datagram, 0, Frame.HEADER_SIZE);
            bad.send(datagram, Frame.HEADER_SIZE + 4);
            NewMechanismsTest.waitFor(() -> server.diagnostics.text().contains("length mismatch"));
            Frame.writeHeader(header, Frame.REQUEST, 0, 0, UdsDgram.maxPayload() + 1);
            MemorySegment.copy(MemorySegment.ofBuffer(header), 0, datagram, 0, Frame.HEADER_SIZE);
            bad.send(datagram, Frame.HEADER_SIZE);
            NewMechanismsTest.waitFor(() -> server.diagnostics.text().contains("length too large"));
            UnixDatagramSocket.unlink(own);

            DriveOptions options = RoundTripTest.options(server, dir, 16, 16);
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(0, new Client(options, err.stream).run(), err.text());
            assertFalse(Files.exists(Path.of(server.clientEndpoint + "." + PeerInfo.pid())),
                    "the client removes its own socket file");
        }
    }

    @Test
    void udsDgramAboveTheLimitIsUnsupported() throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.UDS_DGRAM, dir, false)) {
            DriveOptions options = RoundTripTest.options(server, dir, UdsDgram.maxPayload() + 1, 16);
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(7, new Client(options, err.stream).run());
            assertTrue(err.text().contains("uds-dgram carries at most"), err.text());
        }
    }

    @Test
    void udsDgramClientRemovesItsPathWhenTheServerIsGone() throws Exception {
        Path endpoint = dir.resolve("none.sock");
        DriveOptions options = new DriveOptions("uds-dgram", endpoint.toString(), "rr", 16, 16, 0, 1,
                dir.resolve("s"), dir.resolve("r.json"), 1, 1_000_000_000L);
        assertEquals(5, new Client(options, new Loopback.Diagnostics().stream).run());
        assertFalse(Files.exists(Path.of(endpoint + "." + PeerInfo.pid())));
    }

    @Test
    void capabilitiesAndReadyNameTheModels() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new Capabilities().print(new PrintStream(out, true, StandardCharsets.UTF_8));
        JsonNode mechanisms = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8))
                .get("mechanisms");
        assertEquals("[\"iterative\",\"thread\",\"virtual-thread\",\"thread-pool\",\"nio\"]",
                mechanisms.get("tcp").get("server_models").toString());
        assertNull(mechanisms.get("udp").get("server_models"));
        JsonNode ready = new ObjectMapper().readTree(
                Ready.of("127.0.0.1:1", "tcp", "nio", null).line().substring("READY ".length()));
        assertEquals("nio", ready.get("server_model").asText());
        assertNull(ready.get("broker"));
        JsonNode plain = new ObjectMapper().readTree(Ready.of("127.0.0.1:1", "tcp").line()
                .substring("READY ".length()));
        assertNull(plain.get("server_model"));
        assertNull(plain.get("broker"));
    }

    @Test
    void anUnknownServerModelIsUnsupported() {
        ServeOptions options = new ServeOptions("tcp", "127.0.0.1:0", 7, Fault.NONE,
                Mechanism.DEFAULT_POLL_INTERVAL_NANOS, Mechanism.DEFAULT_SPIN_NANOS,
                new BurstOptions("epoll", 1, dir.resolve("p.csv"), 512, 4), true);
        PeerException e = assertThrows(PeerException.class,
                () -> Servers.open(options, new Loopback.Diagnostics().stream));
        assertEquals(ErrorKind.UNSUPPORTED, e.kind());
        ServeOptions udp = new ServeOptions("udp", "127.0.0.1:0", 7, Fault.NONE,
                Mechanism.DEFAULT_POLL_INTERVAL_NANOS, Mechanism.DEFAULT_SPIN_NANOS,
                new BurstOptions("thread", 1, dir.resolve("p.csv"), 512, 4), true);
        assertEquals(ErrorKind.UNSUPPORTED, assertThrows(PeerException.class,
                () -> Servers.open(udp, new Loopback.Diagnostics().stream)).kind());
    }

    private DriveOptions withWarmup(DriveOptions o, long warmup) {
        return new DriveOptions(o.mechanism(), o.endpoint(), o.pattern(), o.requestSize(),
                o.responseSize(), warmup, o.iterations(), o.samplesFile(), o.resultFile(), o.seed(),
                o.ioTimeoutNanos(), o.pollIntervalNanos(), o.spinNanos(), o.nativeLibrary(),
                o.payload(), o.sequenceLength(), o.httpClient(),
                dir.resolve("warm-" + warmup + ".samples"), null);
    }
}
