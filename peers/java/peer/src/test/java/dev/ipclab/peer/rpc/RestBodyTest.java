package dev.ipclab.peer.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.server.Fault;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * The REST server's body forms on the wire (protocol/idl/rest.md): {"data": "<standard base64>"}
 * answered in kind, octets as before, put as 204 in both forms; and callString's text (10.1).
 */
class RestBodyTest {
    private static final long SEED = 5;

    @Test
    void callAnswersInTheFormItWasAskedInAndPutTakesBoth() throws Exception {
        Payloads requests = new Payloads(SEED, Payload.REQUEST_STREAM);
        Payloads responses = new Payloads(SEED, Payload.RESPONSE_STREAM);
        try (RpcServer server = RestServer.serve(new InetSocketAddress("127.0.0.1", 0),
                new BenchState(SEED, Fault.NONE), true)) {
            String base = "http://" + server.endpoint();
            byte[] request = requests.stamped(3, 1000);
            String data = Base64.getEncoder().encodeToString(request);
            HttpResponse<byte[]> call = post(base + "/call/3?wanted=70", "application/json",
                    "{\"data\": \"" + data + "\"}");
            assertEquals(200, call.statusCode());
            assertEquals("application/json", call.headers().firstValue("Content-Type").orElse(""));
            JsonNode reply = RestServer.MAPPER.readTree(call.body());
            assertEquals(1, reply.size());
            assertArrayEquals(responses.stamped(3, 70),
                    Base64.getDecoder().decode(reply.get("data").textValue()));
            HttpResponse<byte[]> octets = post(base + "/call/4?wanted=5", "application/octet-stream",
                    requests.stamped(4, 10));
            assertArrayEquals(responses.stamped(4, 5), octets.body());
            assertEquals(204, post(base + "/put/5", "application/json",
                    "{\"data\":\"" + Base64.getEncoder().encodeToString(requests.stamped(5, 9))
                    + "\"}").statusCode());
            assertEquals(204, post(base + "/put/6", "application/octet-stream",
                    requests.stamped(6, 9)).statusCode());
            assertEquals(204, post(base + "/put/7", "application/octet-stream",
                    requests.stamped(8, 9)).statusCode());
            assertEquals("{\"corrupted\":1}", new String(post(base + "/finish", "application/json",
                    "").body(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void aJsonBodyMustBeExactlyTheDataObject() throws Exception {
        try (RpcServer server = RestServer.serve(new InetSocketAddress("127.0.0.1", 0),
                new BenchState(SEED, Fault.NONE), true)) {
            String base = "http://" + server.endpoint();
            for (String body : new String[] {"{\"data\": 1}", "{\"data\": \"AA==\", \"x\": 1}", "[]",
                "{\"data\": \"***\"}", "not json"}) {
                HttpResponse<byte[]> reply = post(base + "/call/0?wanted=1", "application/json", body);
                assertEquals(400, reply.statusCode(), body);
                assertEquals(400, post(base + "/put/0", "application/json", body).statusCode(), body);
            }
        }
    }

    @Test
    void callStringMapsEachByteToTheAlphabet() {
        assertEquals("AA9AH", PayloadText.of(new byte[] {0, 62, 61, 124, (byte) 255}));
        byte[] payload = new Payloads(SEED, Payload.REQUEST_STREAM).stamped(9, 300);
        String text = PayloadText.of(payload);
        assertEquals(300, text.length());
        assertEquals(-1, PayloadText.firstMismatch(payload, text));
        assertEquals(299, PayloadText.firstMismatch(payload, text.substring(0, 299)));
        char[] changed = text.toCharArray();
        changed[17] = changed[17] == 'A' ? 'B' : 'A';
        assertEquals(17, PayloadText.firstMismatch(payload, new String(changed)));
        BenchState bench = new BenchState(SEED, Fault.NONE);
        Payloads responses = new Payloads(SEED, Payload.RESPONSE_STREAM);
        assertEquals(PayloadText.of(responses.stamped(9, 40)), bench.callString(9, 40, text));
        assertEquals(0, bench.finish());
        bench.callString(10, 40, text);
        assertEquals(1, bench.finish());
        String flipped = new BenchState(SEED, Fault.FLIP_RESPONSE_BYTE).callString(9, 40, text);
        assertTrue(PayloadText.firstMismatch(responses.stamped(9, 40), flipped) == 39, flipped);
    }

    private static HttpResponse<byte[]> post(String url, String type, String body) throws Exception {
        return post(url, type, body.getBytes(StandardCharsets.UTF_8));
    }

    private static HttpResponse<byte[]> post(String url, String type, byte[] body) throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", type)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
        }
    }
}
