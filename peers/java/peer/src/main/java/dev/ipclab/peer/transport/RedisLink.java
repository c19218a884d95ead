package dev.ipclab.peer.transport;

import dev.ipclab.peer.frame.Frame;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import redis.clients.jedis.Protocol.Command;

/**
 * The redis-tcp and redis-uds client (PROTOCOL.md 4.10) over one Redis connection: a frame is
 * RPUSH NAME:requests and BLPOP NAME:replies written in one call, its answer the popped element;
 * a stream message one RPUSH written at once, its count read later, and, past the stream's window
 * W(S), a credit taken off NAME:credits first (BLPOP), so that no more than W(S) messages wait
 * untaken. A BLPOP that times out (--io-timeout, a nil reply) is a timeout; the socket's own
 * timeout outlasts it by 5 s.
 */
public final class RedisLink implements ClientLink {
    private static final int SOCKET_GRACE_MILLIS = 5_000;
    private static final String VERSION_RESOURCE = "redis/clients/jedis/pom.properties";

    private final RedisWire wire;
    private final byte[] requests;
    private final byte[] replies;
    private final byte[] credits;
    private final byte[] timeout;
    private final int window;
    private final int every;
    private final Bytes bytes = new Bytes();
    /** Stream messages sent since the last MARK_ACK. */
    private long sent;

    private RedisLink(RedisWire wire, RedisEndpoint endpoint, int timeoutMillis, int messageSize) {
        this.wire = wire;
        this.requests = endpoint.requests();
        this.replies = endpoint.replies();
        this.credits = endpoint.credits();
        this.timeout = seconds(timeoutMillis);
        this.window = LibraryLimits.streamWindow(messageSize);
        this.every = creditEvery(window);
    }

    /**
     * @param tcp redis-tcp's endpoint, else redis-uds's
     * @param messageSize a stream's message size (its window); 0 for rr
     */
    public static ClientLink connect(String endpoint, boolean tcp, long ioTimeoutNanos,
            int messageSize) throws IOException {
        RedisEndpoint at = RedisEndpoint.parse(endpoint, tcp);
        int timeoutMillis = Math.max(1, LibraryLimits.millis(ioTimeoutNanos));
        int socketMillis = (int) Math.min(Integer.MAX_VALUE,
                (long) timeoutMillis + SOCKET_GRACE_MILLIS);
        return new RedisLink(RedisWire.open(at, socketMillis), at, timeoutMillis, messageSize);
    }

    /**
     * {@code "jedis 8.0.2"}: the client library both sides run (capabilities' {@code library}),
     * from Jedis's own record of its version (which its CLIENT SETINFO sends), read without
     * loading any of Jedis's classes.
     */
    public static String library() {
        Properties p = new Properties();
        try (InputStream in = RedisLink.class.getClassLoader()
                .getResourceAsStream(VERSION_RESOURCE)) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // The version is information for the reader: unknown rather than no mechanism.
        }
        return "jedis " + p.getProperty("version", "(version unknown)");
    }

    /** K(S) = ⌈W / 2⌉: the responder pushes a credit per this many messages taken (4.10). */
    static int creditEvery(int window) {
        return (window + 1) / 2;
    }

    /** --io-timeout as BLPOP's timeout: seconds, with milliseconds ({@code "30.000"}). */
    static byte[] seconds(int millis) {
        return String.format("%d.%03d", millis / 1000, millis % 1000)
                .getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void send(ByteBuffer frame) throws IOException {
        wire.append(false, Command.RPUSH, requests, bytes.of(frame));
        wire.append(true, Command.BLPOP, replies, timeout);
        wire.write();
    }

    /** The element copied into dst as far as it fits; its real size, so a wrong one shows. */
    @Override
    public int receive(ByteBuffer dst, int frameSize) throws IOException {
        byte[] answer = popped(wire.next(), replies);
        dst.clear().put(0, answer, 0, Math.min(answer.length, dst.capacity()));
        // A MARK_ACK opens a stream's window: its messages are counted from here.
        if (answer.length == Frame.HEADER_SIZE && Frame.kind(dst) == Frame.MARK_ACK) {
            sent = 0;
        }
        return answer.length;
    }

    /** A stream message (11.1): one RPUSH, after a credit where the window is full. */
    @Override
    public void sendMessage(ByteBuffer message) throws IOException {
        if (sent >= window && (sent - window) % every == 0) {
            wire.append(true, Command.BLPOP, credits, timeout);
            wire.write();
            popped(wire.next(), credits);
        }
        wire.append(false, Command.RPUSH, requests, bytes.of(message));
        wire.write();
        sent++;
    }

    /**
     * BLPOP's element: nil is a timeout, anything but [key, bytes] an answer of the wrong kind.
     */
    static byte[] popped(Object reply, byte[] key) throws IOException {
        if (reply instanceof List<?> pair && pair.size() == 2 && pair.get(1) instanceof byte[] b) {
            return b;
        }
        String name = new String(key, StandardCharsets.US_ASCII);
        if (reply == null) {
            throw new ReceiveTimeoutException("nothing on " + name + " within --io-timeout");
        }
        throw new WrongAnswerException("BLPOP " + name + " answered no [key, element] pair");
    }

    /** Everything sent has been answered by now (END_ACK is in): the socket just closes. */
    @Override
    public void close() {
        wire.shut();
    }

    /**
     * The bytes of a frame or message as Jedis sends them, an array of its size reused from one
     * call to the next: Jedis has written the array out by the time a command is appended.
     */
    static final class Bytes {
        private byte[] last = new byte[0];
        private byte[] before = new byte[0];

        /** The bytes [position, limit) of buffer, which stays as it is. */
        byte[] of(ByteBuffer buffer) {
            int n = buffer.remaining();
            if (last.length != n) {
                byte[] swap = before;
                before = last;
                last = swap.length == n ? swap : new byte[n];
            }
            buffer.get(buffer.position(), last, 0, n);
            return last;
        }
    }
}
