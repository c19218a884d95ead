package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.LibraryRuns.Run;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.transport.ClientLink;
import dev.ipclab.peer.transport.Nng;
import dev.ipclab.peer.transport.NngLink;
import dev.ipclab.peer.transport.ZeroMq;
import dev.ipclab.peer.transport.Zmq;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The message libraries' two sockets, ZeroMQ (zmq-tcp, zmq-ipc: PROTOCOL.md 4.8) and NNG
 * (nng-tcp, nng-ipc: 4.9), both through FFM on the system's library: what RoundTripTest and
 * StreamPatternTest do not cover for every mechanism: sizes up to the limit, stream faults, the
 * empty answer to a rejected request, stream messages out of place, the ipc files, a server
 * that is not there, a server process's end, capabilities' library.
 */
class SocketPairTest {
    private static final long SECONDS_10 = 10_000_000_000L;

    @TempDir
    Path dir;

    @RegisterExtension
    final StartedProcesses started = new StartedProcesses();

    @ParameterizedTest
    @CsvSource({"zmq-tcp,zmq-ipc,libzmq", "nng-tcp,nng-ipc,nng"})
    void capabilitiesNameTheLibraryItRuns(String tcp, String ipc, String library)
            throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new Capabilities().print(new PrintStream(out, true, StandardCharsets.UTF_8));
        JsonNode mechanisms = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8))
                .get("mechanisms");
        String version = mechanisms.get(tcp).get("library").asText();
        assertTrue(version.matches(library + " [0-9]+\\.[0-9]+\\.[0-9]+"), version);
        assertEquals(version, (tcp.startsWith("zmq") ? Zmq.version() : Nng.version()));
        for (String name : List.of(tcp, ipc)) {
            JsonNode entry = mechanisms.get(name);
            assertEquals(version, entry.get("library").asText());
            assertEquals("[\"serve\",\"drive\"]", entry.get("roles").toString());
            assertEquals("[\"rr\",\"stream\"]", entry.get("patterns").toString());
            assertEquals(Frame.MAX_PAYLOAD, entry.get("max_payload").asInt());
        }
        assertFalse(mechanisms.get("tcp").has("library"));
    }

    /** The largest payload each way (128 MiB), one round trip after one warm-up. */
    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({"ZMQ_TCP,134217728,16", "ZMQ_IPC,16,134217728", "NNG_TCP,16,134217728",
        "NNG_IPC,134217728,16"})
    void roundTripsUpToTheLimit(Mechanism mechanism, int requestSize, int responseSize)
            throws Exception {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, Fault.NONE)) {
            Run run = drive(server, "--request-size", Integer.toString(requestSize),
                    "--response-size", Integer.toString(responseSize), "--iterations", "1",
                    "--warmup", "1");
            assertEquals(0, run.exit(), run.err());
            assertEquals(1, RoundTripTest.samples(run.options()).length);
            assertEquals("", server.diagnostics.text());
        }
    }

    @ParameterizedTest
    @CsvSource({"ZMQ_IPC,DROP_STREAM_MESSAGE", "ZMQ_TCP,FLIP_STREAM_BYTE",
        "NNG_TCP,DROP_STREAM_MESSAGE", "NNG_IPC,FLIP_STREAM_BYTE"})
    void aServerThatDropsOrCorruptsAMessageFailsTheStream(Mechanism mechanism, Fault fault)
            throws Exception {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, fault)) {
            LibraryRuns.assertStreamFaultFails(dir, server, fault);
        }
    }

    /** REP must answer: a rejected frame gets an empty message, and the server goes on. */
    @ParameterizedTest
    @EnumSource(names = {"ZMQ_TCP", "ZMQ_IPC", "NNG_TCP", "NNG_IPC"})
    void aRejectedRequestIsAnsweredEmptyAndTheServerGoesOn(Mechanism mechanism) throws Exception {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, Fault.NONE)) {
            LibraryRuns.assertRejectedFramesAnsweredEmpty(dir, server);
        }
    }

    /**
     * A stream message when none is due is rejected (unexpected message; an NNG server sees it
     * when the next request comes, before answering it, so requests follow until it has); one
     * of the wrong size gives up the rest of its MARK's count (length mismatch), which END_ACK
     * shows.
     */
    @ParameterizedTest
    @EnumSource(names = {"ZMQ_TCP", "NNG_IPC"})
    void streamMessagesOutOfPlaceAreRejected(Mechanism mechanism) throws Exception {
        try (ServerHarness server = ServerHarness.start(mechanism, dir, Fault.NONE);
                ClientLink link = streamLink(mechanism, server.clientEndpoint, 16)) {
            LibraryRuns.mark(link, 0, 16, 1);
            ByteBuffer message = Payload.base(1, Payload.REQUEST_STREAM, 16);
            Payload.stamp(message, 0, 16, Payload.head(1, Payload.REQUEST_STREAM), 0);
            link.sendMessage(message.clear());
            link.sendMessage(message.clear()); // the MARK announced one
            roundTripUntil(server, link, "ipclab-peer: rejected frame: unexpected message");

            LibraryRuns.mark(link, 1, 16, 2);
            link.sendMessage(Frame.allocate(15)); // not 16: the rest of the count is given up
            LibraryRuns.waitFor(server, "ipclab-peer: rejected frame: length mismatch");
            // The shortfall: none of the second MARK's two (the MARK reset the count).
            assertEquals(0, LibraryRuns.end(link, 2).received());
        }
    }

    /** A stream client's link for messages of size bytes (an NNG client dials its PUSH now). */
    private static ClientLink streamLink(Mechanism mechanism, String endpoint, int size)
            throws Exception {
        long largest = Frame.HEADER_SIZE + Frame.STREAM_END_ACK_PAYLOAD;
        boolean ipc = mechanism.label().endsWith("-ipc");
        return mechanism.label().startsWith("zmq")
                ? ZeroMq.connect(endpoint, ipc, SECONDS_10, largest, size)
                : NngLink.connect(endpoint, ipc, SECONDS_10, largest, size);
    }

    /** Round trips of 16 bytes on link until the server has written line. */
    private static void roundTripUntil(ServerHarness server, ClientLink link, String line)
            throws Exception {
        OutgoingFrame request = new OutgoingFrame(Frame.REQUEST, 1, Payload.REQUEST_STREAM, 16);
        ByteBuffer response = Frame.allocate(Frame.HEADER_SIZE + 16);
        long deadline = System.nanoTime() + SECONDS_10;
        for (long sequence = 100; !server.diagnostics.text().contains(line)
                && System.nanoTime() < deadline; sequence++) {
            link.send(request.prepare(sequence, 16));
            assertEquals(response.capacity(), link.receive(response, response.capacity()));
        }
        assertTrue(server.diagnostics.text().contains(line), server.diagnostics.text());
    }

    /** ipc: both socket files 0600 while serving, an existing one refused, both removed. */
    @ParameterizedTest
    @CsvSource({"ZMQ_IPC,zmq-ipc", "NNG_IPC,nng-ipc"})
    void ipcSocketFilesAreOwnerOnlyRefusedIfPresentAndRemoved(Mechanism mechanism, String name)
            throws Exception {
        Path socket;
        try (ServerHarness server = ServerHarness.start(mechanism, dir, Fault.NONE)) {
            socket = Path.of(server.clientEndpoint);
            for (Path file : List.of(socket, Path.of(socket + ".stream"))) {
                assertEquals("rw-------", PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(file)));
            }
            Loopback.Diagnostics err = new Loopback.Diagnostics();
            assertEquals(5, Main.run(new String[] {"serve", "--mechanism", name,
                "--endpoint", socket.toString()}, err.stream));
            assertTrue(err.text().contains("path exists"), err.text());
        }
        assertFalse(Files.exists(socket));
        assertFalse(Files.exists(Path.of(socket + ".stream")));
        Path taken = Files.createFile(dir.resolve("taken.sock.stream"));
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(5, Main.run(new String[] {"serve", "--mechanism", name, "--endpoint",
            dir.resolve("taken.sock").toString()}, err.stream));
        assertFalse(Files.exists(dir.resolve("taken.sock")), "the request socket was left");
        assertTrue(Files.exists(taken), "someone else's file was removed");
    }

    /**
     * Nobody at the endpoint: ZeroMQ connects in the background, so the answer times out; NNG
     * dials before the clock, so the dial fails at once (io). A client endpoint that is not
     * READY's two addresses is a usage error.
     */
    @ParameterizedTest
    @CsvSource({"ZMQ_IPC,ZMQ_TCP,6,timeout", "NNG_IPC,NNG_TCP,5,io"})
    void nobodyAtTheEndpointFailsAsTheLibraryConnects(Mechanism ipc, Mechanism tcp, int exit,
            String kind) throws Exception {
        Run run = drive(ipc, dir.resolve("nobody.sock").toString(),
                "--request-size", "16", "--response-size", "16", "--iterations", "1",
                "--io-timeout", "0.3");
        assertEquals(exit, run.exit(), run.err());
        assertEquals(kind, RoundTripTest.result(run.options()).get("error_kind").asText());
        Run bad = drive(tcp, "127.0.0.1:5555", "--request-size", "16",
                "--response-size", "16", "--iterations", "1");
        assertEquals(2, bad.exit(), bad.err());
        assertTrue(bad.err().contains("tcp://HOST:PORT,tcp://HOST:PORT"), bad.err());
    }

    /**
     * As the orchestrator runs it, in a process of its own: READY with its two addresses; the end
     * of stdin ends it with exit 0, nothing on stderr, the ipc files removed.
     */
    @ParameterizedTest
    @CsvSource({"zmq-tcp", "zmq-ipc", "nng-tcp", "nng-ipc"})
    void aServerProcessEndsCleanlyAtTheEndOfItsInput(String mechanism) throws Exception {
        boolean ipc = mechanism.endsWith("-ipc");
        String endpoint = ipc ? dir.resolve("p.sock").toString() : "127.0.0.1:0";
        LibraryRuns.ServerProcess server = LibraryRuns.serve(started, mechanism, endpoint);
        String ready = server.ready().get("endpoint").asText();
        if (ipc) {
            assertEquals(endpoint, ready);
        } else {
            assertTrue(ready.matches("tcp://127\\.0\\.0\\.1:[0-9]+,tcp://127\\.0\\.0\\.1:[0-9]+"),
                    ready);
        }
        Run run = drive(Mechanism.byName(mechanism).orElseThrow(), ready, "--pattern", "stream",
                "--message-size", "1024", "--messages", "2000", "--warmup", "0");
        assertEquals(0, run.exit(), run.err());
        server.assertEndsCleanlyAtTheEndOfItsInput();
        if (ipc) {
            assertFalse(Files.exists(Path.of(endpoint)));
            assertFalse(Files.exists(Path.of(endpoint + ".stream")));
        }
    }

    private Run drive(ServerHarness server, String... flags) throws Exception {
        return drive(server.mechanism, server.clientEndpoint, flags);
    }

    private Run drive(Mechanism mechanism, String endpoint, String... flags) throws Exception {
        return LibraryRuns.drive(dir, mechanism, endpoint, flags);
    }
}
