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

    public static RpcClient connect(RpcDrive.Options options) {
        return connect(options, false);
    }

    /** short (section 11.3): every call asks for {@code Connection: close}, so each has its own. */
    public static RpcClient connectShort(RpcDrive.Options options) {
        return connect(options, true);
    }

    private static RpcClient connect(RpcDrive.Options options, boolean close) {
        InetSocketAddress address = RpcServer.address(options.endpoint());
        String base = "http://" + RpcServer.format(address.getHostString(), address.getPort());
        return options.httpClient().equals("jdk") ? new Jdk(base, options.ioTimeoutNanos(), close)
                : new OkHttp(base, options.ioTimeoutNanos(), close);
    }

    /** A response as both clients return it: status and body. */
    private record Reply(int status, byte[] body) {}

    /** The shared part: routes, JSON, and error kinds. */
    private abstract static class Rest implements RpcClient {
        final String base;

        Rest(String base) {
            this.base = base;
        }

        abstract Reply post(String path, Object body, boolean json) throws Exception;

        /** The request body in the client's own form, made before the clock. */
        abstract Object body(byte[] bytes, boolean json);

        @Override
        public Object prepareCall(long sequence, int wanted, byte[] request) {
            return new Object[] {"/call/" + Long.toUnsignedString(sequence) + "?wanted="
                    + Integer.toUnsignedString(wanted), body(request, false)};
        }

        @Override
        public Object call(Object prepared) throws Exception {
            Object[] args = (Object[]) prepared;
            return ok(post((String) args[0], args[1], false));
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
            return ok(post("/echo/" + kind.label(), value, true));
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

        @Override
        public long finish() throws Exception {
            Reply reply = ok(post("/finish", body(new byte[0], false), false));
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

        private static Reply ok(Reply reply) throws PeerException {
            if (reply.status() != 200) {
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
        private final boolean close;

        OkHttp(String base, long ioTimeoutNanos, boolean close) {
            super(base);
            this.close = close;
            client = new OkHttpClient.Builder()
                    .protocols(List.of(Protocol.HTTP_1_1))
                    .connectionPool(new ConnectionPool(1, 5, TimeUnit.MINUTES))
                    .socketFactory(new NoDelaySockets())
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
        Reply post(String path, Object body, boolean json) throws IOException {
            Request.Builder builder = new Request.Builder().url(base + path).post((RequestBody) body);
            if (close) {
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

    /** OkHttp leaves Nagle on; the contract wants TCP_NODELAY on both sides. */
    private static final class NoDelaySockets extends SocketFactory {
        @Override
        public Socket createSocket() throws IOException {
            Socket socket = new Socket();
            socket.setTcpNoDelay(true);
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
        private final boolean close;

        Jdk(String base, long ioTimeoutNanos, boolean close) {
            super(base);
            this.close = close;
            timeout = Duration.ofNanos(ioTimeoutNanos);
            client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(timeout).build();
        }

        @Override
        Object body(byte[] bytes, boolean json) {
            return new Object[] {bytes, json ? "application/json" : "application/octet-stream"};
        }

        @Override
        Reply post(String path, Object body, boolean json) throws IOException, InterruptedException {
            Object[] parts = (Object[]) body;
            HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + path))
                    .timeout(timeout)
                    .header("Content-Type", (String) parts[1])
                    .POST(HttpRequest.BodyPublishers.ofByteArray((byte[]) parts[0]));
            if (close) {
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
