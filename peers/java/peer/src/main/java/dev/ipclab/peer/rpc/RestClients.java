package dev.ipclab.peer.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ipclab.peer.frame.PeerException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.SocketFactory;
import okhttp3.ConnectionPool;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * REST clients (--http-client): OkHttp (the default, as in the published comparison) and the
 * JDK's java.net.http forced to HTTP/1.1. Both keep one connection alive for the whole run, or
 * (short) ask for {@code Connection: close} so that every call opens its own.
 */
public final class RestClients {
    private static final MediaType OCTETS = MediaType.get("application/octet-stream");
    private static final MediaType JSON = MediaType.get("application/json");

    static {
        // java.net.http refuses to set Connection (short's "close") unless allowed before its
        // first use; the keep-alive clients never set it.
        System.setProperty("jdk.httpclient.allowRestrictedHeaders", "connection");
    }

    private RestClients() {}

    public static RpcClient connect(RpcDrive.Options options) throws PeerException {
        return connect(options, false);
    }

    /** short (section 11.3): every call asks for {@code Connection: close}, so each has its own. */
    public static RpcClient connectShort(RpcDrive.Options options) throws PeerException {
        return connect(options, true);
    }

    /**
     * @throws PeerException unsupported: --nodelay off with java.net.http, which sets
     *     TCP_NODELAY on every socket itself (PlainHttpConnection) and has no option against it
     */
    private static RpcClient connect(RpcDrive.Options options, boolean close) throws PeerException {
        InetSocketAddress address = RpcServer.address(options.endpoint());
        String base = "http://" + RpcServer.format(address.getHostString(), address.getPort());
        Route route = new Route(base, options.restJson(), close);
        if (!options.httpClient().equals("jdk")) {
            return new OkHttp(route, options.ioTimeoutNanos(), options.nodelay());
        }
        if (!options.nodelay()) {
            throw PeerException.unsupported("--nodelay off: java.net.http (--http-client jdk) sets "
                    + "TCP_NODELAY on its sockets itself and cannot leave Nagle on; use okhttp");
        }
        return new Jdk(route, options.ioTimeoutNanos());
    }

    /**
     * Where and how a client posts: the server's base URL, the body form of bytes (--rest-body)
     * and whether each call asks for {@code Connection: close} (short).
     */
    private record Route(String base, boolean json, boolean close) {}

    /** A response as both clients return it: status and body. */
    private record Reply(int status, byte[] body) {}

    /**
     * The shared part: routes, JSON, and error kinds. Bytes as octets: the body is made before
     * the clock. As JSON (--rest-body json): the base64 JSON is written and read inside the
     * timed call, as a client of that form does it on every call.
     */
    private abstract static class Rest implements RpcClient {
        final Route route;

        Rest(Route route) {
            this.route = route;
        }

        abstract Reply post(String path, Object body) throws Exception;

        /** The request body in the client's own form. */
        abstract Object body(byte[] bytes, boolean json);

        @Override
        public Object prepareCall(long sequence, int wanted, byte[] request) {
            return prepared("/call/" + Long.toUnsignedString(sequence) + "?wanted="
                    + Integer.toUnsignedString(wanted), request);
        }

        @Override
        public Object preparePut(long sequence, byte[] request) {
            return prepared("/put/" + Long.toUnsignedString(sequence), request);
        }

        /** The path and, for octets, the finished body; for JSON the bytes (encoded when timed). */
        private Object[] prepared(String path, byte[] request) {
            return new Object[] {path, route.json() ? request : body(request, false)};
        }

        private Reply send(Object prepared, int status) throws Exception {
            Object[] args = (Object[]) prepared;
            Object body = route.json() ? body(RestBody.encode((byte[]) args[1], true), true) : args[1];
            return expect(post((String) args[0], body), status);
        }

        @Override
        public Object call(Object prepared) throws Exception {
            Reply reply = send(prepared, 200);
            return route.json() ? new Reply(200, decode(reply.body())) : reply;
        }

        @Override
        public void put(Object prepared) throws Exception {
            send(prepared, 204);
        }

        @Override
        public void putRecord(Structs.Kind kind, Object value) throws Exception {
            expect(post("/put/" + kind.label(), value), 204);
        }

        /** A JSON reply's bytes; not that form: a protocol error (the server broke the route). */
        private static byte[] decode(byte[] body) throws PeerException {
            try {
                return RestBody.decode(body, true);
            } catch (IllegalArgumentException e) {
                throw PeerException.protocol("rest: the reply " + e.getMessage(), e);
            }
        }

        @Override
        public ByteBuffer responseBytes(Object response) {
            return ByteBuffer.wrap(((Reply) response).body());
        }

        @Override
        public Object toNative(Structs.Kind kind, Map<String, Object> record) {
            return body(RestServer.json(record), true);
        }

        @Override
        public Object echo(Structs.Kind kind, Object value) throws Exception {
            return expect(post("/echo/" + kind.label(), value), 200);
        }

        @Override
        public Map<String, Object> fromNative(Structs.Kind kind, Object value) {
            Map<String, Object> record = new LinkedHashMap<>();
            try {
                JsonNode tree = RestServer.MAPPER.readTree(((Reply) value).body());
                for (Structs.FieldSpec field : kind.fields()) {
                    record.put(field.name(), neutral(tree.get(field.name()), field.type()));
                }
            } catch (IOException | RuntimeException e) {
                // A body that is not the record is a mismatch in every field.
                return Map.of();
            }
            return record;
        }

        /**
         * A first HTTP request (10.3's "connecting" for rest) on a path no server has: any
         * answer (404) means the kept-alive connection is up, and no server state changes.
         */
        @Override
        public void awaitConnected(long timeoutNanos) throws Exception {
            post("/", body(new byte[0], false));
        }

        @Override
        public long finish() throws Exception {
            Reply reply = expect(post("/finish", body(new byte[0], false)), 200);
            return RestServer.MAPPER.readTree(reply.body()).get("corrupted").asLong();
        }

        @Override
        public PeerException classify(Throwable failure) {
            String text = "rest: " + PeerException.describe(failure);
            if (failure instanceof PeerException e) {
                return e;
            }
            if (failure instanceof SocketTimeoutException || failure instanceof HttpTimeoutException
                    || failure instanceof InterruptedIOException) {
                return PeerException.timeout(text, failure);
            }
            if (failure instanceof IOException) {
                return PeerException.io(text, failure);
            }
            return PeerException.protocol(text, failure);
        }

        private static Reply expect(Reply reply, int status) throws PeerException {
            if (reply.status() != status) {
                throw PeerException.protocol("rest: HTTP " + reply.status() + ": "
                        + new String(reply.body(), StandardCharsets.UTF_8), null);
            }
            return reply;
        }

        private static Object neutral(JsonNode node, Structs.Type type) {
            return switch (type) {
                case INT -> node.isInt() ? node.intValue() : node;
                case STRING -> node.isTextual() ? node.textValue() : node;
                case BOOL -> node.isBoolean() ? node.booleanValue() : node;
                case DOUBLE -> node.isNumber() ? node.doubleValue() : node;
                case INT_SEQ -> list(node, Structs.Type.INT);
                case STRING_SEQ -> list(node, Structs.Type.STRING);
                case DOUBLE_SEQ -> list(node, Structs.Type.DOUBLE);
            };
        }

        private static Object list(JsonNode node, Structs.Type element) {
            if (!node.isArray()) {
                return node;
            }
            List<Object> list = new ArrayList<>(node.size());
            for (JsonNode item : node) {
                list.add(neutral(item, element));
            }
            return list;
        }
    }

    private static final class OkHttp extends Rest {
        private final OkHttpClient client;

        /** @param nodelay TCP_NODELAY through our socket factory; false leaves Nagle on */
        OkHttp(Route route, long ioTimeoutNanos, boolean nodelay) {
            super(route);
            client = new OkHttpClient.Builder()
                    .protocols(List.of(Protocol.HTTP_1_1))
                    .connectionPool(new ConnectionPool(1, 5, TimeUnit.MINUTES))
                    .socketFactory(new NoDelaySockets(nodelay))
                    .connectTimeout(ioTimeoutNanos, TimeUnit.NANOSECONDS)
                    .readTimeout(ioTimeoutNanos, TimeUnit.NANOSECONDS)
                    .writeTimeout(ioTimeoutNanos, TimeUnit.NANOSECONDS)
                    .retryOnConnectionFailure(false)
                    .build();
        }

        @Override
        Object body(byte[] bytes, boolean json) {
            return RequestBody.create(bytes, json ? JSON : OCTETS);
        }

        @Override
        Reply post(String path, Object body) throws IOException {
            Request.Builder builder = new Request.Builder().url(route.base() + path)
                    .post((RequestBody) body);
            if (route.close()) {
                builder.header("Connection", "close");
            }
            Request request = builder.build();
            try (Response response = client.newCall(request).execute()) {
                return new Reply(response.code(), response.body().bytes());
            }
        }

        @Override
        public void close() {
            client.dispatcher().executorService().shutdown();
            client.connectionPool().evictAll();
        }
    }

    /**
     * OkHttp leaves Nagle on; the contract wants TCP_NODELAY on both sides unless --nodelay off.
     */
    private static final class NoDelaySockets extends SocketFactory {
        private final boolean nodelay;

        NoDelaySockets(boolean nodelay) {
            this.nodelay = nodelay;
        }

        @Override
        public Socket createSocket() throws IOException {
            Socket socket = new Socket();
            socket.setTcpNoDelay(nodelay);
            return socket;
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            throw new UnsupportedOperationException("OkHttp connects unconnected sockets");
        }

        @Override
        public Socket createSocket(String host, int port, InetAddress local, int localPort) {
            throw new UnsupportedOperationException("OkHttp connects unconnected sockets");
        }

        @Override
        public Socket createSocket(InetAddress host, int port) {
            throw new UnsupportedOperationException("OkHttp connects unconnected sockets");
        }

        @Override
        public Socket createSocket(InetAddress host, int port, InetAddress local, int localPort) {
            throw new UnsupportedOperationException("OkHttp connects unconnected sockets");
        }
    }

    /** java.net.http sets TCP_NODELAY on its sockets itself. */
    private static final class Jdk extends Rest {
        private final HttpClient client;
        private final Duration timeout;

        Jdk(Route route, long ioTimeoutNanos) {
            super(route);
            timeout = Duration.ofNanos(ioTimeoutNanos);
            client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(timeout).build();
        }

        @Override
        Object body(byte[] bytes, boolean json) {
            return new Object[] {bytes, json ? "application/json" : "application/octet-stream"};
        }

        @Override
        Reply post(String path, Object body) throws IOException, InterruptedException {
            Object[] parts = (Object[]) body;
            HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(route.base() + path))
                    .timeout(timeout)
                    .header("Content-Type", (String) parts[1])
                    .POST(HttpRequest.BodyPublishers.ofByteArray((byte[]) parts[0]));
            if (route.close()) {
                builder.header("Connection", "close");
            }
            HttpRequest request = builder.build();
            HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            return new Reply(response.statusCode(), response.body());
        }

        @Override
        public void close() {
            client.shutdownNow();
        }
    }
}
