package dev.ipclab.peer.transport;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.DefaultJedisSocketFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisSocketFactory;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * One connection to the Redis server (PROTOCOL.md 4.10), Jedis's {@link Connection} speaking
 * RESP2, with its commands pipelined as the contract writes them: appended, written in one call
 * ({@link #write}), their replies read in order ({@link #next}: the replies nobody waits for, an
 * RPUSH's count, are read and checked before the next wanted one). Every argument is bytes, so
 * values are binary-safe. Jedis's failures become IOExceptions: a read past the socket's timeout
 * a {@link ReceiveTimeoutException}, an error reply an io error naming the server's message.
 */
final class RedisWire extends Connection {
    /** The connect timeout when reads have none (a responder's). */
    private static final int CONNECT_MILLIS = 30_000;

    private final String where;
    /** Replies to read and check before the next wanted one. */
    private long unwanted;

    private RedisWire(JedisSocketFactory sockets, JedisClientConfig config, String where) {
        super(sockets, config);
        this.where = where;
    }

    /**
     * Connects to the endpoint's server.
     *
     * @param timeoutMillis above 0: bounds every read (and the connect); 0: reads wait forever
     */
    static RedisWire open(RedisEndpoint endpoint, int timeoutMillis) throws IOException {
        int connect = timeoutMillis > 0 ? timeoutMillis : CONNECT_MILLIS;
        // RESP2 as the other peers speak it (HELLO 2, one round trip at connect); no CLIENT
        // SETINFO, which a Redis before 7.2 refuses.
        JedisClientConfig config = DefaultJedisClientConfig.builder()
                .protocol(RedisProtocol.RESP2).clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
                .socketTimeoutMillis(timeoutMillis).connectionTimeoutMillis(connect).build();
        JedisSocketFactory sockets = endpoint.socket() != null
                ? () -> unixSocket(Path.of(endpoint.socket()), timeoutMillis)
                : new DefaultJedisSocketFactory(new HostAndPort(endpoint.server().host(),
                        endpoint.server().port()), config);
        try {
            return new RedisWire(sockets, config, endpoint.where());
        } catch (JedisException e) {
            throw failure("connect to Redis at " + endpoint.where(), e, endpoint.where());
        }
    }

    /** redis-uds: Jedis takes a Socket; a Unix one is the channel adapted ({@link ChannelSocket}). */
    private static java.net.Socket unixSocket(Path path, int timeoutMillis) {
        try {
            return ChannelSocket.connect(path, timeoutMillis);
        } catch (IOException e) {
            throw new JedisConnectionException("cannot connect to " + path + ": " + e.getMessage(), e);
        }
    }

    /** Appends one command; wanted: its reply is what a {@link #next} returns. */
    void append(boolean wanted, Protocol.Command command, byte[]... args) throws IOException {
        try {
            sendCommand(command, args);
        } catch (JedisException e) {
            throw failure("write", e, where);
        }
        if (!wanted) {
            unwanted++;
        }
    }

    /** Writes everything appended, in as few calls as the socket takes. */
    void write() throws IOException {
        try {
            flush();
        } catch (JedisException e) {
            throw failure("write", e, where);
        }
    }

    /**
     * The reply of the next wanted command, after the unwanted ones before it: bytes, a Long, a
     * List or null (nil).
     */
    Object next() throws IOException {
        try {
            while (unwanted > 0) {
                unwanted--;
                getUnflushedObject();
            }
            return getUnflushedObject();
        } catch (JedisException e) {
            throw failure("read", e, where);
        }
    }

    /** Closes the socket, from any thread: a read blocked in another fails at once. */
    void shut() {
        try {
            forceDisconnect();
        } catch (IOException | JedisException e) {
            // Closed either way; nothing else can be done about a failing close.
        }
    }

    /** INFO server's {@code redis_version}, or {@code unknown}. */
    static String redisVersion(Object info) {
        String text = info instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : "";
        for (String line : text.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length()).trim();
            }
        }
        return "unknown";
    }

    private static IOException failure(String what, JedisException e, String where) {
        if (e instanceof JedisDataException) {
            return new IOException("Redis at " + where + " answered: " + e.getMessage(), e);
        }
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof SocketTimeoutException) {
                return new ReceiveTimeoutException(what + ": nothing from Redis at " + where
                        + " within --io-timeout");
            }
        }
        String message = String.valueOf(e.getMessage());
        if (message.contains("end of stream")) {
            return new IOException(what + ": the Redis server at " + where
                    + " closed the connection", e);
        }
        return new IOException(what + ": Redis at " + where + ": " + message, e);
    }
}
