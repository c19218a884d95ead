package dev.ipclab.peer.rpc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * REST (protocol/idl/rest.md) on the JDK's own {@code com.sun.net.httpserver}: no dependency, an
 * HTTP/1.1 keep-alive server with a thread pool, which is all the contract asks for. Bodies are
 * read whole into arrays; JSON goes through Jackson's tree model, so a missing, extra or mistyped
 * field is a 400.
 */
public final class RestServer {
    static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String OCTETS = "application/octet-stream";
    private static final String JSON = "application/json";

    /** The sun.net.httpserver.nodelay this process set, or null before the first server. */
    private static Boolean nodelayRead;

    private RestServer() {}

    /**
     * @param nodelay false (--nodelay off): the JDK server leaves Nagle on, as it does by default
     * @throws IllegalStateException when this JVM's JDK server already read the other setting
     */
    public static RpcServer serve(InetSocketAddress address, BenchState bench, boolean nodelay)
            throws IOException {
        useNodelay(nodelay);
        HttpServer server = HttpServer.create(address, 64);
        ExecutorService threads = Executors.newCachedThreadPool(runnable ->
                Thread.ofPlatform().daemon().name("ipclab-rest").unstarted(runnable));
        server.setExecutor(threads);
        server.createContext("/", exchange -> handle(exchange, bench));
        server.start();
        return new RpcServer(RpcServer.format(address, server.getAddress().getPort()), () -> {
            server.stop(0);
            threads.shutdownNow();
        });
    }

    /**
     * TCP_NODELAY for every JDK HTTP server of this process (rest, soap). Read once per process,
     * when the JDK's server configuration class loads: with Nagle on the server stalls ~40 ms per
     * response on Nagle + delayed ACK (section 10.3).
     *
     * @throws IllegalStateException when this JVM's JDK server already read the other setting
     */
    static void useNodelay(boolean nodelay) {
        synchronized (RestServer.class) {
            if (nodelayRead != null && nodelayRead != nodelay) {
                throw new IllegalStateException("the JDK HTTP server of this process already runs "
                        + "with --nodelay " + (nodelayRead ? "on" : "off"));
            }
            System.setProperty("sun.net.httpserver.nodelay", Boolean.toString(nodelay));
            nodelayRead = nodelay;
        }
    }

    private static void handle(HttpExchange exchange, BenchState bench) throws IOException {
        try (exchange; InputStream body = exchange.getRequestBody()) {
            String path = exchange.getRequestURI().getRawPath();
            String query = exchange.getRequestURI().getRawQuery();
            if (!known(path)) {
                reply(exchange, 404, "text/plain", bytes("unknown path " + path));
                return;
            }
            if (!exchange.getRequestMethod().equals("POST")) {
                exchange.getResponseHeaders().set("Allow", "POST");
                reply(exchange, 405, "text/plain", bytes("only POST is allowed"));
                return;
            }
            byte[] request = body.readAllBytes();
            try {
                answer(exchange, path, query, request, bench);
            } catch (IllegalArgumentException e) {
                reply(exchange, 400, "text/plain", bytes(e.getMessage()));
            }
        }
    }

    private static boolean known(String path) {
        return path.equals("/finish") || path.startsWith("/call/") || path.startsWith("/put/")
                || (path.startsWith("/echo/") && record(path, "/echo/") != null);
    }

    /** The kind of {@code /echo/KIND} or {@code /put/KIND}, else null. */
    private static Structs.Kind record(String path, String prefix) {
        return Structs.Kind.byLabel(path.substring(prefix.length()));
    }

    /** One known POST: each operation of idl/rest.md. */
    private static void answer(HttpExchange exchange, String path, String query, byte[] request,
            BenchState bench) throws IOException {
        boolean json = RestBody.isJson(exchange.getRequestHeaders().getFirst("Content-Type"));
        if (path.startsWith("/echo/")) {
            reply(exchange, 200, JSON, echo(record(path, "/echo/"), request, bench.n2Flip()));
        } else if (path.equals("/finish")) {
            reply(exchange, 200, JSON,
                    bytes("{\"corrupted\":" + Long.toUnsignedString(bench.finish()) + "}"));
        } else if (path.startsWith("/put/")) {
            Structs.Kind kind = record(path, "/put/");
            if (kind != null) {
                echo(kind, request, 0);
            } else {
                bench.put(unsigned(path.substring("/put/".length()), "sequence"),
                        RestBody.decode(request, json));
            }
            reply(exchange, 204, OCTETS, new byte[0]);
        } else {
            long sequence = unsigned(path.substring("/call/".length()), "sequence");
            if (query == null || !query.startsWith("wanted=")) {
                throw new IllegalArgumentException("the query must be wanted=N");
            }
            long wanted = unsigned(query.substring("wanted=".length()), "wanted");
            byte[] response = bench.call(sequence, wanted, RestBody.decode(request, json));
            reply(exchange, 200, json ? JSON : OCTETS, RestBody.encode(response, json));
        }
    }

    /**
     * A record's JSON checked field by field; the echo with n2 XOR flip. Package-private for its
     * fuzz target (RecordFuzzTest).
     */
    static byte[] echo(Structs.Kind kind, byte[] body, int flip) {
        JsonNode tree;
        try {
            tree = MAPPER.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("body is not JSON: " + e.getMessage());
        }
        if (tree == null || !tree.isObject()) {
            throw new IllegalArgumentException("body must be a JSON object");
        }
        ObjectNode object = (ObjectNode) tree;
        for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (kind.fields().stream().noneMatch(f -> f.name().equals(name))) {
                throw new IllegalArgumentException("unknown field " + name);
            }
        }
        for (Structs.FieldSpec field : kind.fields()) {
            JsonNode value = object.get(field.name());
            if (value == null) {
                throw new IllegalArgumentException("missing field " + field.name());
            }
            if (!typed(value, field.type())) {
                throw new IllegalArgumentException("field " + field.name() + " is not "
                        + field.type().name().toLowerCase(java.util.Locale.ROOT));
            }
        }
        object.put("n2", object.get("n2").intValue() ^ flip);
        try {
            return MAPPER.writeValueAsBytes(object);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a parsed tree is always JSON", e);
        }
    }

    private static boolean typed(JsonNode value, Structs.Type type) {
        return switch (type) {
            case INT -> isInt(value);
            case STRING -> value.isTextual();
            case BOOL -> value.isBoolean();
            case DOUBLE -> value.isNumber();
            case INT_SEQ -> all(value, RestServer::isInt);
            case STRING_SEQ -> all(value, JsonNode::isTextual);
            case DOUBLE_SEQ -> all(value, JsonNode::isNumber);
        };
    }

    private static boolean isInt(JsonNode value) {
        return value.isIntegralNumber() && value.canConvertToInt();
    }

    private static boolean all(JsonNode value, java.util.function.Predicate<JsonNode> test) {
        if (!(value instanceof ArrayNode array)) {
            return false;
        }
        for (JsonNode element : array) {
            if (!test.test(element)) {
                return false;
            }
        }
        return true;
    }

    private static long unsigned(String text, String what) {
        if (text.isEmpty() || text.length() > 20 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException(what + " must be an unsigned decimal integer, got '"
                    + text + "'");
        }
        try {
            return Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " is out of range: " + text);
        }
    }

    /**
     * Content-Length always (-1 announces an empty body; 0 would mean chunked); Connection: close
     * answered in kind.
     */
    private static void reply(HttpExchange exchange, int status, String type, byte[] body)
            throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        // short (section 11.3): say that this connection ends, as HTTP/1.1 wants, so that no
        // client puts it back into its pool.
        if ("close".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Connection"))) {
            exchange.getResponseHeaders().set("Connection", "close");
        }
        if (status == 204) {
            exchange.getResponseHeaders().remove("Content-Type");
        }
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** JSON of a neutral record, fields in generation order. */
    static byte[] json(Map<String, Object> record) {
        try {
            return MAPPER.writeValueAsBytes(record);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a record of numbers, strings and lists is always JSON", e);
        }
    }
}
