package dev.ipclab.peer.rpc;

import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.pattern.Session;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * The client side of section 10 as a {@link Session}: connect once, then each round trip is one
 * stub call (bytes) or one echo (structured), checked after the second clock read, and the
 * finish. The pattern's loop is the peer's ({@code Pattern}).
 */
public final class RpcDrive {
    /**
     * @param payload {@code bytes}, {@code small}, {@code medium} or {@code large}
     * @param httpClient rest only: {@code okhttp} or {@code jdk}
     */
    public record Options(String mechanism, String endpoint, long seed, int requestSize,
            int responseSize, String payload, int sequenceLength, long ioTimeoutNanos,
            String httpClient) {}

    private RpcDrive() {}

    /**
     * Connects (before the warm-up, section 10.1).
     *
     * @throws PeerException io when the framework cannot connect
     */
    public static Session open(RpcClient.Factory factory, Options options) throws PeerException {
        RpcClient client;
        try {
            client = factory.connect(options);
        } catch (PeerException e) {
            throw e;
        } catch (Exception e) {
            throw PeerException.io("cannot connect to " + options.endpoint() + ": "
                    + PeerException.describe(e), e);
        }
        Structs.Kind kind = Structs.Kind.byLabel(options.payload());
        return kind == null ? new Bytes(client, options)
                : new Echo(client, kind, Structs.generate(kind, options.seed(), options.sequenceLength()));
    }

    /** The finish and the close, the same for both payload forms. */
    private abstract static class Calls implements Session {
        final RpcClient client;

        Calls(RpcClient client) {
            this.client = client;
        }

        @Override
        public void finish(long sequence) throws PeerException {
            long corrupted;
            try {
                corrupted = client.finish();
            } catch (Exception e) {
                throw client.classify(e);
            }
            if (corrupted != 0) {
                throw PeerException.mismatch("payload mismatch: server received "
                        + Long.toUnsignedString(corrupted) + " corrupted request payloads");
            }
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** call(seq, response_size, payload(seed, 1, seq, request_size)), checked after the clock. */
    private static final class Bytes extends Calls {
        private final int responseSize;
        private final byte[] request;
        private final Payloads requests;
        private final Payloads responses;

        Bytes(RpcClient client, Options options) {
            super(client);
            this.responseSize = options.responseSize();
            this.requests = new Payloads(options.seed(), Payload.REQUEST_STREAM);
            this.responses = new Payloads(options.seed(), Payload.RESPONSE_STREAM);
            this.request = requests.stamped(0, options.requestSize());
        }

        @Override
        public long roundTrip(long sequence) throws PeerException {
            // Stamped in place: a blocking stub has sent the whole request when it returns.
            requests.stamp(request, sequence);
            Object prepared = client.prepareCall(sequence, responseSize, request);
            Object response;
            long start = System.nanoTime();
            try {
                response = client.call(prepared);
            } catch (Exception e) {
                throw client.classify(e);
            }
            long stop = System.nanoTime();
            ByteBuffer bytes = client.responseBytes(response);
            long offset = responses.firstMismatch(sequence, responseSize, bytes);
            if (offset >= 0) {
                throw PeerException.mismatch("payload mismatch: response sequence " + sequence
                        + (bytes.remaining() != responseSize
                                ? " has " + bytes.remaining() + " bytes, expected " + responseSize
                                : " differs from the expected bytes at offset " + offset));
            }
            return stop - start;
        }
    }

    /** The echo of the stamped record, compared field by field after the clock. */
    private static final class Echo extends Calls {
        private final Structs.Kind kind;
        private final Map<String, Object> record;

        Echo(RpcClient client, Structs.Kind kind, Map<String, Object> record) {
            super(client);
            this.kind = kind;
            this.record = record;
        }

        @Override
        public long roundTrip(long sequence) throws PeerException {
            Map<String, Object> expected = Structs.stamped(record, sequence);
            Object value = client.toNative(kind, expected);
            Object echoed;
            long start = System.nanoTime();
            try {
                echoed = client.echo(kind, value);
            } catch (Exception e) {
                throw client.classify(e);
            }
            long stop = System.nanoTime();
            String field = Structs.firstDifference(kind, expected, client.fromNative(kind, echoed));
            if (field != null) {
                throw PeerException.mismatch("payload mismatch: echoed " + kind.label()
                        + " of sequence " + sequence + " differs in field " + field);
            }
            return stop - start;
        }
    }
}
