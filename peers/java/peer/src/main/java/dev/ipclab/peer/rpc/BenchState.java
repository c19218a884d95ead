package dev.ipclab.peer.rpc;

import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.StreamTally;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every server does, whatever the framework (section 10.1): answers call with the response
 * payload, checks its request and counts the corrupted ones for finish; applies the fault.
 */
public final class BenchState {
    private final Payloads requests;
    private final Payloads responses;
    private final boolean flip;
    private final Fault fault;
    private final long seed;
    private final AtomicLong corrupted = new AtomicLong();

    public BenchState(long seed, Fault fault) {
        this.requests = new Payloads(seed, Payload.REQUEST_STREAM);
        this.responses = new Payloads(seed, Payload.RESPONSE_STREAM);
        this.flip = fault == Fault.FLIP_RESPONSE_BYTE;
        this.fault = fault;
        this.seed = seed;
    }

    /** The counters of one streaming call (section 11.3), with the stream faults. */
    StreamTally streamTally() {
        return new StreamTally(seed, fault);
    }

    /**
     * Validates before answering: a handler has no "after the reply" (section 10.1).
     *
     * @param wanted an unsigned 32-bit count; over MAX_PAYLOAD is refused
     */
    byte[] call(long sequence, long wanted, ByteBuffer request) {
        checkWanted(wanted);
        put(sequence, request);
        return response(sequence, wanted);
    }

    /** callString (--corba-payload string): call with each byte as its character (10.1). */
    String callString(long sequence, long wanted, String request) {
        checkWanted(wanted);
        if (PayloadText.firstMismatch(requests.stamped(sequence, request.length()), request) >= 0) {
            corrupted.incrementAndGet();
        }
        return PayloadText.of(response(sequence, wanted));
    }

    private static void checkWanted(long wanted) {
        if (wanted < 0 || wanted > RpcLimits.MAX_PAYLOAD) {
            throw new IllegalArgumentException("wanted " + wanted + " is above MAX_PAYLOAD "
                    + RpcLimits.MAX_PAYLOAD);
        }
    }

    /** call's response payload, its last byte flipped under the fault. */
    private byte[] response(long sequence, long wanted) {
        byte[] response = responses.stamped(sequence, (int) wanted);
        if (flip && response.length > 0) {
            response[response.length - 1] ^= 1;
        }
        return response;
    }

    byte[] call(long sequence, long wanted, byte[] request) {
        return call(sequence, wanted, ByteBuffer.wrap(request));
    }

    /** put (--void): the request checked as call's, counted when corrupted; nothing returned. */
    void put(long sequence, ByteBuffer request) {
        if (requests.firstMismatch(sequence, request.remaining(), request) >= 0) {
            corrupted.incrementAndGet();
        }
    }

    void put(long sequence, byte[] request) {
        put(sequence, ByteBuffer.wrap(request));
    }

    /**
     * An echoed record of a framework whose generated records have a public mutable {@code n2}
     * (CORBA, Ice, Thrift): the argument itself, with n2's low bit flipped under the fault.
     */
    <T> T echoed(T value) {
        if (flip) {
            try {
                java.lang.reflect.Field n2 = value.getClass().getField("n2");
                n2.setInt(value, n2.getInt(value) ^ 1);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(value.getClass() + " has no public int n2", e);
            }
        }
        return value;
    }

    /** The low bit of n2 to flip in echoed structs: 1 with the fault, else 0. */
    int n2Flip() {
        return flip ? 1 : 0;
    }

    /** Corrupted requests since the previous finish (the END_ACK of section 2). */
    long finish() {
        return corrupted.getAndSet(0);
    }
}
