package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.frame.OutgoingFrame;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.Vectors;
import dev.ipclab.peer.server.Loopback;
import dev.ipclab.peer.server.Server;
import dev.ipclab.peer.transport.AmqpLink;
import dev.ipclab.peer.transport.ClientLink;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * activemq (PROTOCOL.md 4.7): the responder and the client through one real broker for the
 * class, started as the orchestrator starts it ({@link TestBroker}). Runs are small: the broker
 * is the slow part.
 */
class ActiveMqTest {
    private static final long SECONDS_10 = 10_000_000_000L;

    @TempDir
    static Path brokerDir;

    private static TestBroker broker;

    @TempDir
    Path dir;

    @RegisterExtension
    final StartedProcesses started = new StartedProcesses();

    @BeforeAll
    static void startBroker() throws Exception {
        broker = TestBroker.start(brokerDir);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    @ParameterizedTest(name = "{0} {1} B")
    @CsvSource({"non-persistent,16", "persistent,16", "non-persistent,1048576",
        "persistent,1048576"})
    void roundTripsInEitherDeliveryMode(String delivery, int size) throws Exception {
        try (Responder responder = Responder.start("--delivery", delivery)) {
            long iterations = size > 1000 ? 3 : 20;
            Run run = drive(responder, "--delivery", delivery, "--request-size",
                    Integer.toString(size), "--response-size", Integer.toString(size),
                    "--warmup", "2", "--iterations", Long.toString(iterations));
            assertEquals(0, run.exit, run.err);
            JsonNode result = RoundTripTest.result(run.options);
            assertEquals("ok", result.get("status").asText());
            assertEquals("activemq", result.get("mechanism").asText());
            assertEquals(iterations, RoundTripTest.samples(run.options).length);
            assertEquals("", responder.diagnostics.text());
        }
    }

    @Test
    void streamsThroughTheBroker() throws Exception {
        try (Responder responder = Responder.start()) {
            Run run = drive(responder, "--pattern", "stream", "--message-size", "1000",
                    "--messages", "200", "--warmup", "10", "--windows", "4");
            assertEquals(0, run.exit, run.err);
            JsonNode result = RoundTripTest.result(run.options);
            assertEquals(200, result.get("messages").asLong());
            assertEquals(0, result.get("lost").asLong());
            assertEquals(4, RoundTripTest.samples(run.options).length);
            assertEquals("", responder.diagnostics.text());
        }
    }

    @Test
    void aFlippedResponseByteIsAPayloadMismatch() throws Exception {
        try (Responder responder = Responder.start("--fault", "flip-response-byte")) {
            Run run = drive(responder, "--request-size", "16", "--response-size", "16",
                    "--iterations", "3");
            assertEquals(3, run.exit, run.err);
            assertTrue(run.err.contains("payload mismatch: response sequence 0 differs from the "
                    + "expected bytes at offset 15"), run.err);
            assertEquals(0, RoundTripTest.samples(run.options).length);
        }
    }

    /**
     * A malformed message is rejected with its line and dropped (its sender gets no answer);
     * the responder goes on with the next client. The queue keeps the order, so the lines are
     * there once the good client is done.
     */
    @Test
    void aMalformedMessageIsRejectedAndTheResponderGoesOn() throws Exception {
        try (Responder responder = Responder.start()) {
            JsonNode badMagic = Vectors.list("malformed").get(0);
            try (ClientLink bad = AmqpLink.connect(responder.endpoint, SECONDS_10, false)) {
                bad.send(ByteBuffer.wrap(Vectors.hex(badMagic, "hex")));
                bad.sendMessage(ByteBuffer.wrap(new byte[10]));
                byte[] request = bytes(new OutgoingFrame(Frame.REQUEST, 1,
                        Payload.REQUEST_STREAM, 16).prepare(0, 16));
                bad.send(ByteBuffer.wrap(Arrays.copyOf(request, 30)));
            }
            Connection connection = new JmsConnectionFactory(broker.url).createConnection();
            try (connection) {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer producer = session.createProducer(session.createQueue(
                        responder.endpoint.substring(broker.url.length() + 1)));
                producer.send(session.createTextMessage("IPCL"));
                BytesMessage noReplyTo = session.createBytesMessage();
                noReplyTo.writeBytes(bytes(new OutgoingFrame(Frame.REQUEST, 1,
                        Payload.REQUEST_STREAM, 0).prepare(0, 0)));
                producer.send(noReplyTo);
            }
            Run run = drive(responder, "--request-size", "16", "--response-size", "16",
                    "--iterations", "3");
            assertEquals(0, run.exit, run.err);
            assertEquals(List.of("bad magic", "truncated header", "length mismatch",
                    "body is not one data section", "no reply-to"),
                    responder.diagnostics.text().lines().map(line -> line.replace(
                            "ipclab-peer: rejected frame: ", "")).toList());
            assertEquals("bad magic", badMagic.get("reason").asText());
        }
    }

    /** The client checks that an answer carries the correlation-id it sent (else protocol). */
    @Test
    void anAnswerWithAnotherCorrelationIdIsAProtocolError() throws Exception {
        String queue = "ipclab.wrong-answers";
        Connection connection = new JmsConnectionFactory(broker.url).createConnection();
        try (connection) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer requests = session.createConsumer(session.createQueue(queue));
            MessageProducer answers = session.createProducer(null);
            connection.start();
            FutureTask<Void> answering = new FutureTask<>(() -> {
                Message request = requests.receive(10_000);
                BytesMessage answer = session.createBytesMessage();
                answer.writeBytes(new byte[Frame.HEADER_SIZE + 16]);
                answer.setJMSCorrelationID("ID:AMQP_ULONG:99");
                answers.send(request.getJMSReplyTo(), answer);
                return null;
            });
            Thread.ofPlatform().daemon().start(answering);
            Run run = drive(broker.url + "/" + queue, "--request-size", "16", "--response-size",
                    "16", "--iterations", "1", "--io-timeout", "10");
            answering.get(10, TimeUnit.SECONDS);
            assertEquals(4, run.exit, run.err);
            assertTrue(run.err.contains("answer correlation-id: expected 0, received 99"), run.err);
        }
    }

    private static byte[] bytes(ByteBuffer frame) {
        byte[] bytes = new byte[frame.remaining()];
        frame.get(frame.position(), bytes);
        return bytes;
    }

    /**
     * What the client puts on the wire, as a plain JMS consumer sees it: the frame's bytes as
     * the body, durable per --delivery, reply-to its own queue, the sequence as a ulong
     * correlation-id (Qpid JMS shows only a ulong with this prefix), no message-id.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aFrameIsOneMessageWithReplyToAndCorrelationId(boolean persistent) throws Exception {
        String queue = "ipclab.wire-test." + persistent;
        ByteBuffer frame = new OutgoingFrame(Frame.REQUEST, 1, Payload.REQUEST_STREAM, 5)
                .prepare(7, 3);
        byte[] sent = bytes(frame);
        Connection connection = new JmsConnectionFactory(broker.url).createConnection();
        try (connection; ClientLink link = AmqpLink.connect(broker.url + "/" + queue, SECONDS_10,
                persistent)) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            connection.start();
            link.send(frame);
            Message message = consumer.receive(10_000);
            BytesMessage bytes = assertInstanceOf(BytesMessage.class, message);
            byte[] body = new byte[(int) bytes.getBodyLength()];
            bytes.readBytes(body);
            assertEquals(ByteBuffer.wrap(sent), ByteBuffer.wrap(body));
            assertEquals(persistent ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT,
                    message.getJMSDeliveryMode());
            assertEquals("ID:AMQP_ULONG:7", message.getJMSCorrelationID());
            assertEquals("ipclab." + ProcessHandle.current().pid() + ".replies",
                    ((Queue) message.getJMSReplyTo()).getQueueName());
            assertNull(message.getJMSMessageID());
        }
    }

    /**
     * As the orchestrator runs it, in a process of its own: READY once it consumes, with its
     * queue in the endpoint; SIGTERM ends it with exit 0 and nothing on stderr.
     */
    @Test
    void aResponderProcessEndsCleanlyOnSigterm() throws Exception {
        Process server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin",
                "java").toString(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve",
                "--mechanism", "activemq", "--endpoint", broker.url).start();
        started.add(server);
        String line = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.UTF_8)).readLine();
        assertTrue(line != null && line.startsWith("READY {"), "READY line: " + line);
        JsonNode ready = new ObjectMapper().readTree(line.substring("READY ".length()));
        assertEquals(broker.url + "/ipclab." + server.pid() + ".requests",
                ready.get("endpoint").asText());
        assertEquals("activemq", ready.get("mechanism").asText());
        server.toHandle().destroy();
        assertTrue(server.waitFor(20, TimeUnit.SECONDS), "the responder did not exit");
        assertEquals(0, server.exitValue());
        assertEquals("", new String(server.getErrorStream().readAllBytes(),
                StandardCharsets.UTF_8));
    }

    @Test
    void aSilentQueueIsATimeoutAndNoBrokerIsAnIoError() throws Exception {
        Run silent = drive(broker.url + "/ipclab.nobody.requests", "--request-size", "16",
                "--response-size", "16", "--iterations", "1", "--io-timeout", "0.5");
        assertEquals(6, silent.exit, silent.err);
        assertEquals("timeout", RoundTripTest.result(silent.options).get("error_kind").asText());
        Run refused = drive("amqp://127.0.0.1:1/q", "--request-size", "16", "--response-size",
                "16", "--iterations", "1");
        assertEquals(5, refused.exit, refused.err);
        assertTrue(refused.err.startsWith(
                "ipclab-peer: io: cannot connect to amqp://127.0.0.1:1/q"), refused.err);
    }

    /** --delivery is activemq's only: unsupported (exit 7) elsewhere, whatever its value. */
    @Test
    void deliveryOnAnotherMechanismIsUnsupported() {
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        assertEquals(7, Main.run(new String[] {"drive", "--mechanism", "tcp", "--endpoint",
            "127.0.0.1:1", "--delivery", "non-persistent", "--request-size", "1", "--response-size",
            "1", "--iterations", "1", "--samples-file", dir.resolve("s").toString(),
            "--result-file", dir.resolve("r").toString()}, err.stream));
        assertEquals(7, Main.run(new String[] {"serve", "--mechanism", "uds", "--endpoint",
            dir.resolve("x.sock").toString(), "--delivery", "persistent"}, err.stream));
        assertEquals(2, Main.run(new String[] {"serve", "--mechanism", "activemq", "--endpoint",
            broker.url, "--delivery", "durable"}, err.stream));
        assertEquals("ipclab-peer: unsupported: --delivery is for activemq only, not tcp",
                err.text().lines().findFirst().orElseThrow());
    }

    private record Run(DriveOptions options, int exit, String err) {}

    private Run drive(Responder responder, String... flags) throws Exception {
        return drive(responder.endpoint, flags);
    }

    /** A client in this JVM, with --samples-file and --result-file in the test's directory. */
    private Run drive(String endpoint, String... flags) throws Exception {
        List<String> args = new ArrayList<>(List.of("drive", "--mechanism", "activemq",
                "--endpoint", endpoint, "--samples-file", dir.resolve("s").toString(),
                "--result-file", dir.resolve("r.json").toString()));
        args.addAll(List.of(flags));
        DriveOptions options = (DriveOptions) Cli.parse(args.toArray(String[]::new));
        Loopback.Diagnostics err = new Loopback.Diagnostics();
        return new Run(options, new Client(options, err.stream).run(), err.text());
    }

    /** A responder on a thread of this JVM, stopped and checked (exit 0) on close. */
    private static final class Responder implements AutoCloseable {
        final Loopback.Diagnostics diagnostics;
        final String endpoint;
        private final Server server;
        private final FutureTask<Integer> serving;

        private Responder(Server server, Loopback.Diagnostics diagnostics) {
            this.server = server;
            this.diagnostics = diagnostics;
            this.endpoint = server.endpoint();
            this.serving = new FutureTask<>(server::serve);
            Thread.ofPlatform().daemon().name("test-responder").start(serving);
        }

        static Responder start(String... flags) throws Exception {
            List<String> args = new ArrayList<>(List.of("serve", "--mechanism", "activemq",
                    "--endpoint", broker.url));
            args.addAll(List.of(flags));
            ServeOptions options = (ServeOptions) Cli.parse(args.toArray(String[]::new));
            Loopback.Diagnostics diagnostics = new Loopback.Diagnostics();
            Responder responder = new Responder(Servers.open(options, diagnostics.stream),
                    diagnostics);
            assertTrue(responder.endpoint.matches("amqp://127\\.0\\.0\\.1:[0-9]+/ipclab\\."
                    + ProcessHandle.current().pid() + "\\.requests"), responder.endpoint);
            return responder;
        }

        @Override
        public void close() throws Exception {
            try {
                server.stop();
                assertEquals(0, serving.get(20, TimeUnit.SECONDS), diagnostics.text());
            } finally {
                server.close();
            }
        }
    }
}
