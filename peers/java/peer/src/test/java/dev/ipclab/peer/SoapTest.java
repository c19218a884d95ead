package dev.ipclab.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.ipclab.peer.server.Fault;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * soap (PROTOCOL.md 10.3): the JAX-WS server on a thread of this JVM, the peer's client against
 * it, and the WSDL's messages posted by hand as a stock client (curl) would. The child-process
 * cases every RPC mechanism shares are in {@link RpcTest}.
 */
class SoapTest {
    private static final String NS = "urn:ipclab:soap";
    private static final String ENVELOPE = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/"
            + "soap/envelope/\"><soap:Body>%s</soap:Body></soap:Envelope>";
    private static final String FINISH = "<finish xmlns=\"urn:ipclab:soap\"/>";

    @TempDir
    Path dir;

    private String lastError = "";

    @Test
    void bytesRecordsAndVoidCallsRoundTrip() throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.SOAP, dir, Fault.NONE)) {
            assertEquals(0, drive(server, "--request-size", "16", "--response-size", "16",
                    "--warmup", "5", "--iterations", "20"), lastError);
            assertEquals(0, drive(server, "--request-size", "1048576", "--response-size",
                    "1048576", "--iterations", "2"), lastError);
            for (String payload : List.of("small", "medium", "large")) {
                assertEquals(0, drive(server, "--payload", payload, "--sequence-length", "5",
                        "--iterations", "3"), lastError);
                assertEquals(0, drive(server, "--void", "--payload", payload, "--iterations", "3"),
                        lastError);
            }
            assertEquals(0, drive(server, "--void", "--request-size", "1000", "--iterations", "10"),
                    lastError);
            assertEquals(10, new ObjectMapper().readTree(dir.resolve("r.json").toFile())
                    .get("samples").asInt());
            assertEquals(0, finishByHand(server.clientEndpoint));
        }
    }

    @Test
    void flippedResponseByteAndN2AreMismatches() throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.SOAP, dir,
                Fault.FLIP_RESPONSE_BYTE)) {
            assertEquals(3, drive(server, "--request-size", "16", "--response-size", "16",
                    "--iterations", "1"));
            assertTrue(lastError.contains("payload mismatch") && lastError.contains("offset 15"),
                    lastError);
            assertEquals(3, drive(server, "--payload", "small", "--iterations", "1"));
            assertTrue(lastError.contains("field n2"), lastError);
        }
    }

    /** Requests of another seed are counted; finish reports them once and resets the count. */
    @Test
    void finishCountsCorruptedRequestsAndResets() throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.SOAP, dir, Fault.NONE)) {
            assertEquals(3, drive(server, "--seed", "2", "--void", "--request-size", "16",
                    "--iterations", "2"));
            assertTrue(lastError.contains("2 corrupted"), lastError);
            assertEquals(0, finishByHand(server.clientEndpoint));
            // A call by hand whose request is not payload(1, 1, 0, 3): one corrupted request.
            HttpResponse<String> reply = post(server.clientEndpoint, "call",
                    "<call xmlns=\"urn:ipclab:soap\"><seq>0</seq><wanted>3</wanted>"
                            + "<request>AAAA</request></call>");
            assertEquals(200, reply.statusCode(), reply.body());
            assertEquals(1, finishByHand(server.clientEndpoint));
            assertEquals(0, finishByHand(server.clientEndpoint));
        }
    }

    @Test
    void refusedIsIoAndASilentServerIsATimeout() throws Exception {
        assertEquals(5, drive("127.0.0.1:1", "--request-size", "1", "--response-size", "1",
                "--iterations", "1"));
        // Answers the connecting GET, never a POST: the call's read timeout is --io-timeout.
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService threads = Executors.newCachedThreadPool();
        HttpServer silent = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
        silent.setExecutor(threads);
        silent.createContext("/soap", exchange -> {
            if (exchange.getRequestMethod().equals("POST")) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        silent.start();
        try {
            assertEquals(6, drive("127.0.0.1:" + silent.getAddress().getPort(), "--request-size",
                    "1", "--response-size", "1", "--iterations", "1", "--io-timeout", "0.5"),
                    lastError);
            assertTrue(lastError.contains("timeout"), lastError);
        } finally {
            release.countDown();
            silent.stop(0);
            threads.shutdownNow();
        }
    }

    /** A stock client's finish (section 10.3's curl): a finishResponse whose result is 0. */
    @Test
    void handWrittenFinishEnvelopeGetsAFinishResponse() throws Exception {
        try (ServerHarness server = ServerHarness.start(Mechanism.SOAP, dir, Fault.NONE)) {
            HttpResponse<String> reply = post(server.clientEndpoint, "finish", FINISH);
            assertEquals(200, reply.statusCode(), reply.body());
            assertTrue(reply.headers().firstValue("Content-Type").orElse("").startsWith("text/xml"),
                    reply.headers().toString());
            assertEquals("0", result(reply.body(), "finishResponse"));
        }
    }

    /** POSTs one operation's body element in a SOAP 1.1 envelope, as the WSDL's binding says. */
    private static HttpResponse<String> post(String endpoint, String operation, String body)
            throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + endpoint + "/soap"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"urn:ipclab:soap:" + operation + "\"")
                .POST(HttpRequest.BodyPublishers.ofString(String.format(ENVELOPE, body)))
                .build();
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .build()) {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        }
    }

    private static long finishByHand(String endpoint) throws Exception {
        HttpResponse<String> reply = post(endpoint, "finish", FINISH);
        assertEquals(200, reply.statusCode(), reply.body());
        return Long.parseLong(result(reply.body(), "finishResponse"));
    }

    /** The text of {@code <result>} inside the Body's one {@code <wrapper>} element. */
    private static String result(String envelope, String wrapper) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        Document document = factory.newDocumentBuilder().parse(
                new ByteArrayInputStream(envelope.getBytes(StandardCharsets.UTF_8)));
        NodeList wrappers = document.getElementsByTagNameNS(NS, wrapper);
        assertEquals(1, wrappers.getLength(), envelope);
        NodeList results = ((Element) wrappers.item(0)).getElementsByTagNameNS(NS, "result");
        assertEquals(1, results.getLength(), envelope);
        return results.item(0).getTextContent();
    }

    private int drive(ServerHarness server, String... more) {
        return drive(server.clientEndpoint, more);
    }

    private int drive(String endpoint, String... more) {
        List<String> args = new ArrayList<>(List.of("drive", "--mechanism", "soap", "--endpoint",
                endpoint, "--samples-file", dir.resolve("s").toString(), "--result-file",
                dir.resolve("r.json").toString()));
        args.addAll(List.of(more));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args.toArray(String[]::new),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        lastError = err.toString(StandardCharsets.UTF_8);
        return code;
    }
}
