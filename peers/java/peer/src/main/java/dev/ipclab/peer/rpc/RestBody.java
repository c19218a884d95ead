package dev.ipclab.peer.rpc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Map;

/**
 * The two body forms of bytes over REST (protocol/idl/rest.md): {@code application/octet-stream}
 * (the bytes) and {@code application/json} ({@code {"data": "<standard base64>"}}, --rest-body
 * json). Jackson writes a {@code byte[]} as standard base64 with padding and reads it back, which
 * is what the thesis's OkHttp + Jackson client sent.
 */
final class RestBody {
    static final String JSON = "application/json";

    private RestBody() {}

    /** Whether a Content-Type names JSON (parameters such as charset aside). */
    static boolean isJson(String contentType) {
        return contentType != null && contentType.startsWith(JSON);
    }

    /** The body of bytes in the form asked for. */
    static byte[] encode(byte[] bytes, boolean json) {
        if (!json) {
            return bytes;
        }
        try {
            return RestServer.MAPPER.writeValueAsBytes(Map.of("data", bytes));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an object of one byte array is always JSON", e);
        }
    }

    /**
     * The bytes of a body in either form.
     *
     * @throws IllegalArgumentException a JSON body that is not exactly {"data": "<base64>"}
     */
    static byte[] decode(byte[] body, boolean json) {
        if (!json) {
            return body;
        }
        JsonNode tree;
        try {
            tree = RestServer.MAPPER.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("body is not JSON: " + e.getMessage());
        }
        if (tree == null || !tree.isObject() || tree.size() != 1 || !tree.has("data")
                || !tree.get("data").isTextual()) {
            throw new IllegalArgumentException("a JSON body must be {\"data\": \"<base64>\"}");
        }
        try {
            return tree.get("data").binaryValue();
        } catch (IOException e) {
            throw new IllegalArgumentException("data is not base64: " + e.getMessage());
        }
    }
}
