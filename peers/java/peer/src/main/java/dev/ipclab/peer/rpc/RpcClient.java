package dev.ipclab.peer.rpc;

import dev.ipclab.peer.frame.PeerException;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * One framework's client, connected once and reused for every call (section 10.1). The timed
 * methods are {@link #call} and {@link #echo}; the others prepare arguments before the clock or
 * read results after it, so framework-neutral values never cross the timed region.
 */
public interface RpcClient extends AutoCloseable {
    /** How a framework connects (or prepares the one connection its first call opens). */
    interface Factory {
        RpcClient connect(RpcDrive.Options options) throws Exception;
    }

    /**
     * Waits until the client's transport connection is up, so that a load client's first call
     * does not pay for it (11.5.3: every connection made before T0). Untimed; default: the
     * framework connected when the client was made.
     *
     * @throws Exception the connection cannot be made within the time
     */
    default void awaitConnected(long timeoutNanos) throws Exception {}

    /** call's arguments in the form the stub takes (e.g. a request message). Untimed. */
    Object prepareCall(long sequence, int wanted, byte[] request);

    /** Timed: one stub call with what {@link #prepareCall} made. */
    Object call(Object prepared) throws Exception;

    /** put's arguments in the form the stub takes (--void). Untimed; default: call's, wanted 0. */
    default Object preparePut(long sequence, byte[] request) {
        return prepareCall(sequence, 0, request);
    }

    /** Timed: one {@code put} (--void) with what {@link #preparePut} made; nothing comes back. */
    void put(Object prepared) throws Exception;

    /** The response bytes of what {@link #call} returned. Untimed. */
    ByteBuffer responseBytes(Object response);

    /**
     * The first offset where a response differs from {@code payload(seed, 2, sequence, length)}
     * ({@code expected} holds the seed and stream), the shorter length if only the lengths
     * differ, -1 if equal. Untimed; a client whose response is not bytes (callString) overrides it.
     */
    default long firstMismatch(Object response, Payloads expected, long sequence, int length) {
        return expected.firstMismatch(sequence, length, responseBytes(response));
    }

    /** The response's payload length. Untimed. */
    default int responseLength(Object response) {
        return responseBytes(response).remaining();
    }

    /** The generated struct for a neutral record. Untimed. */
    Object toNative(Structs.Kind kind, Map<String, Object> record);

    /** Timed: one echo of a generated struct. */
    Object echo(Structs.Kind kind, Object value) throws Exception;

    /** Timed: one putSmall / putMedium / putLarge (--void) of a generated struct. */
    void putRecord(Structs.Kind kind, Object value) throws Exception;

    /** The neutral record of an echoed struct. Untimed. */
    Map<String, Object> fromNative(Structs.Kind kind, Object value);

    /** The corrupted-request count. Not timed. */
    long finish() throws Exception;

    /** The contract's error for what the framework threw (io, timeout, protocol). */
    PeerException classify(Throwable failure);

    @Override
    void close();
}
