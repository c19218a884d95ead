package dev.ipclab.peer.rpc;

import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.pattern.Session;
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
     * @param voidCalls --void: put, putSmall, putMedium, putLarge instead of call and the echoes
     * @param nodelay --nodelay on (true) or off (rest, grpc)
     * @param restJson --rest-body json: bytes as {"data": "<base64>"}
     * @param corbaString --corba-payload string: callString
     * @param nonNegative --value-range non-negative: the records' ints in 0 … 2^31 - 1 (10.2)
     * @param recordsPerCall --records per-call: the next record of the stream for each call
     */
    public record Options(String mechanism, String endpoint, long seed, int requestSize,
            int responseSize, String payload, int sequenceLength, long ioTimeoutNanos,
            String httpClient, boolean voidCalls, boolean nodelay, boolean restJson,
            boolean corbaString, boolean nonNegative, boolean recordsPerCall) {
        /** Without the study flags (section 1's defaults). */
        public Options(String mechanism, String endpoint, long seed, int requestSize,
                int responseSize, String payload, int sequenceLength, long ioTimeoutNanos,
                String httpClient) {
            this(mechanism, endpoint, seed, requestSize, responseSize, payload, sequenceLength,
                    ioTimeoutNanos, httpClient, false, true, false, false, false, false);
        }
    }

    private RpcDrive() {}

    /**
     * Connects (before the warm-up, section 10.1).
     *
     * @throws PeerException io when the framework cannot connect
     */
    /**
     * The factory's client (rr and load alike): a PeerException passes as it is, any other
     * failure becomes what {@code failure} makes of it.
     */
    static <E extends Exception> RpcClient connectWith(RpcClient.Factory factory, Options options,
            java.util.function.Function<Exception, E> failure) throws PeerException, E {
        try {
            return factory.connect(options);
        } catch (PeerException e) {
            throw e;
        } catch (Exception e) {
            throw failure.apply(e);
        }
    }

    public static Session open(RpcClient.Factory factory, Options options) throws PeerException {
        RpcClient client = connectWith(factory, options, e -> PeerException.io(
                "cannot connect to " + options.endpoint() + ": " + PeerException.describe(e), e));
        Structs.Kind kind = Structs.Kind.byLabel(options.payload());
        if (kind == null) {
            return options.voidCalls() ? Put.bytes(client, options) : new Bytes(client, options);
        }
        Structs.Records records = new Structs.Records(kind, options.seed(),
                options.sequenceLength(), options.nonNegative(), options.recordsPerCall());
        return options.voidCalls() ? Put.record(client, kind, records)
                : new Echo(client, kind, records);
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
            PeerException mismatch = mismatch(client, response, responses, sequence, responseSize);
            if (mismatch != null) {
                throw mismatch;
            }
            return stop - start;
        }
    }

    /**
     * call's response checked (length and content, 10.1), after the clock.
     *
     * @return null when it is {@code payload(seed, 2, sequence, responseSize)}, else the mismatch
     */
    static PeerException mismatch(RpcClient client, Object response, Payloads responses,
            long sequence, int responseSize) {
        long offset = client.firstMismatch(response, responses, sequence, responseSize);
        if (offset < 0) {
            return null;
        }
        int length = client.responseLength(response);
        return PeerException.mismatch("payload mismatch: response sequence " + sequence
                + (length != responseSize ? " has " + length + " bytes, expected " + responseSize
                        : " differs from the expected bytes at offset " + offset));
    }

    /**
     * The echo of the call's record (the case's one, or the stream's next: --records), stamped;
     * compared field by field after the clock.
     */
    private static final class Echo extends Calls {
        private final Structs.Kind kind;
        private final Structs.Records records;

        Echo(RpcClient client, Structs.Kind kind, Structs.Records records) {
            super(client);
            this.kind = kind;
            this.records = records;
        }

        @Override
        public long roundTrip(long sequence) throws PeerException {
            Map<String, Object> expected = Structs.stamped(records.next(), sequence);
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

    /**
     * --void: one void operation per round trip, its argument made before the clock; nothing
     * comes back to check.
     */
    private static final class Put extends Calls {
        /** The stub's argument for a sequence (stamped). Untimed. */
        interface Argument {
            Object of(long sequence);
        }

        /** The timed void call. */
        interface Send {
            void send(Object argument) throws Exception;
        }

        private final Argument argument;
        private final Send send;

        Put(RpcClient client, Argument argument, Send send) {
            super(client);
            this.argument = argument;
            this.send = send;
        }

        /** put(seq, payload(seed, 1, seq, request_size)), the array stamped in place. */
        static Put bytes(RpcClient client, Options options) {
            Payloads requests = new Payloads(options.seed(), Payload.REQUEST_STREAM);
            byte[] request = requests.stamped(0, options.requestSize());
            return new Put(client, sequence -> {
                requests.stamp(request, sequence);
                return client.preparePut(sequence, request);
            }, client::put);
        }

        /** putSmall / putMedium / putLarge of the call's record, stamped. */
        static Put record(RpcClient client, Structs.Kind kind, Structs.Records records) {
            return new Put(client, sequence -> client.toNative(kind,
                    Structs.stamped(records.next(), sequence)), value -> client.putRecord(kind, value));
        }

        @Override
        public long roundTrip(long sequence) throws PeerException {
            Object prepared = argument.of(sequence);
            long start = System.nanoTime();
            try {
                send.send(prepared);
            } catch (Exception e) {
                throw client.classify(e);
            }
            return System.nanoTime() - start;
        }
    }
}
