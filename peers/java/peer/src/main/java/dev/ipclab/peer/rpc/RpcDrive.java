package dev.ipclab.peer.rpc;

import dev.ipclab.peer.Payload;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * The client side of section 10: connect once, warm-up and measured calls (bytes or structured),
 * then finish. Every check happens after the second clock read.
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
     * @param samples receives each measured round trip's nanoseconds, once it passed its check
     * @throws RpcException the contract's error: io, timeout, protocol, payload-mismatch, ...
     */
    public static void run(Options options, long warmup, long iterations, LongConsumer samples)
            throws RpcException {
        Framework framework = Framework.byName(options.mechanism());
        if (framework == null) {
            throw RpcException.unsupported("unknown mechanism " + options.mechanism());
        }
        int largest = Math.max(options.requestSize(), options.responseSize());
        if (largest > framework.maxPayload()) {
            throw RpcException.unsupported(framework.label() + " carries at most "
                    + framework.maxPayload() + " payload bytes, asked for " + largest);
        }
        Structs.Kind kind = Structs.Kind.byLabel(options.payload());
        RpcClient client = framework.connect(options);
        try {
            long sequence = 0;
            if (kind == null) {
                Bytes bytes = new Bytes(client, options);
                for (; sequence < warmup; sequence++) {
                    bytes.roundTrip(sequence);
                }
                for (long end = warmup + iterations; sequence < end; sequence++) {
                    samples.accept(bytes.roundTrip(sequence));
                }
            } else {
                Echo echo = new Echo(client, kind, Structs.generate(kind, options.seed(),
                        options.sequenceLength()));
                for (; sequence < warmup; sequence++) {
                    echo.roundTrip(sequence);
                }
                for (long end = warmup + iterations; sequence < end; sequence++) {
                    samples.accept(echo.roundTrip(sequence));
                }
            }
            long corrupted;
            try {
                corrupted = client.finish();
            } catch (Exception e) {
                throw client.classify(e);
            }
            if (corrupted != 0) {
                throw RpcException.mismatch("payload mismatch: server received "
                        + Long.toUnsignedString(corrupted) + " corrupted request payloads");
            }
        } finally {
            client.close();
        }
    }

    /** call(seq, response_size, payload(seed, 1, seq, request_size)), checked after the clock. */
    private static final class Bytes {
        private final RpcClient client;
        private final int responseSize;
        private final byte[] request;
        private final Payloads requests;
        private final Payloads responses;

        Bytes(RpcClient client, Options options) {
            this.client = client;
            this.responseSize = options.responseSize();
            this.requests = new Payloads(options.seed(), Payload.REQUEST_STREAM);
            this.responses = new Payloads(options.seed(), Payload.RESPONSE_STREAM);
            this.request = requests.stamped(0, options.requestSize());
        }

        long roundTrip(long sequence) throws RpcException {
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
                throw RpcException.mismatch("payload mismatch: response sequence " + sequence
                        + (bytes.remaining() != responseSize
                                ? " has " + bytes.remaining() + " bytes, expected " + responseSize
                                : " differs from the expected bytes at offset " + offset));
            }
            return stop - start;
        }
    }

    /** The echo of the stamped record, compared field by field after the clock. */
    private static final class Echo {
        private final RpcClient client;
        private final Structs.Kind kind;
        private final Map<String, Object> record;

        Echo(RpcClient client, Structs.Kind kind, Map<String, Object> record) {
            this.client = client;
            this.kind = kind;
            this.record = record;
        }

        long roundTrip(long sequence) throws RpcException {
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
                throw RpcException.mismatch("payload mismatch: echoed " + kind.label()
                        + " of sequence " + sequence + " differs in field " + field);
            }
            return stop - start;
        }
    }
}
