package dev.ipclab.peer.rpc;

import dev.ipclab.peer.frame.PeerException;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The client glue every generated stub shares: {@code call(seq, wanted, bytes)} returning bytes,
 * one echo per record type (the generated class and the stub's operation), {@code finish}, the
 * framework's error classification and shutdown. A framework whose call or records take another
 * form (Thrift's ByteBuffer and field ids, protobuf messages) overrides those methods only.
 */
class StubClient implements RpcClient {
    /** A stub's {@code call} operation. */
    interface BytesCall {
        byte[] call(long sequence, int wanted, byte[] request) throws Exception;
    }

    /** A stub's {@code put} (--void). */
    interface BytesPut {
        void put(long sequence, byte[] request) throws Exception;
    }

    /** A stub's echo of one record type. */
    interface EchoCall<T> {
        T echo(T value) throws Exception;
    }

    /** A stub's void operation on one record type (putSmall, putMedium, putLarge). */
    interface PutCall<T> {
        void put(T value) throws Exception;
    }

    /** A stub's {@code finish}. */
    interface FinishCall {
        long finish() throws Exception;
    }

    /** How the framework ends its connection. */
    interface Close {
        void close();
    }

    /** One record type of section 10.2 in the framework's generated form, its echo and put. */
    record Echo<T>(Class<T> type, EchoCall<T> call, PutCall<T> put) {
        Object echo(Object value) throws Exception {
            return call.echo(type.cast(value));
        }

        void put(Object value) throws Exception {
            put.put(type.cast(value));
        }
    }

    /** How a framework's exception types map to the contract's kinds; anything else is protocol. */
    record Kinds(List<Class<? extends Throwable>> timeouts, List<Class<? extends Throwable>> io) {
        PeerException classify(String text, Throwable failure) {
            if (timeouts.stream().anyMatch(type -> type.isInstance(failure))) {
                return PeerException.timeout(text, failure);
            }
            if (io.stream().anyMatch(type -> type.isInstance(failure))) {
                return PeerException.io(text, failure);
            }
            return PeerException.protocol(text, failure);
        }
    }

    private final BytesCall bytes;
    private final BytesPut put;
    private final FinishCall finish;
    private final Function<Throwable, PeerException> classify;
    private final Close close;
    private final Map<Structs.Kind, Echo<?>> echoes = new EnumMap<>(Structs.Kind.class);

    /**
     * @param bytes the stub's call, or null when the subclass overrides {@link #prepareCall},
     *     {@link #call} and {@link #responseBytes}
     * @param put the stub's put, or null when the subclass overrides {@link #put}
     */
    StubClient(BytesCall bytes, BytesPut put, FinishCall finish,
            Function<Throwable, PeerException> classify, Close close, Echo<?> small,
            Echo<?> medium, Echo<?> large) {
        this.bytes = bytes;
        this.put = put;
        this.finish = finish;
        this.classify = classify;
        this.close = close;
        echoes.put(Structs.Kind.SMALL, small);
        echoes.put(Structs.Kind.MEDIUM, medium);
        echoes.put(Structs.Kind.LARGE, large);
    }

    static <T> Echo<T> echo(Class<T> type, EchoCall<T> call, PutCall<T> put) {
        return new Echo<>(type, call, put);
    }

    @Override
    public Object prepareCall(long sequence, int wanted, byte[] request) {
        return new Object[] {sequence, wanted, request};
    }

    @Override
    public Object call(Object prepared) throws Exception {
        Object[] args = (Object[]) prepared;
        return bytes.call((Long) args[0], (Integer) args[1], (byte[]) args[2]);
    }

    /** What {@link #preparePut} made: call's form with wanted 0 (unused). */
    @Override
    public void put(Object prepared) throws Exception {
        Object[] args = (Object[]) prepared;
        put.put((Long) args[0], (byte[]) args[2]);
    }

    @Override
    public ByteBuffer responseBytes(Object response) {
        return ByteBuffer.wrap((byte[]) response);
    }

    /** The generated class filled by field name. */
    @Override
    public Object toNative(Structs.Kind kind, Map<String, Object> record) {
        return Structs.toObject(echoes.get(kind).type(), record);
    }

    /** An empty generated record of this kind (its public no-argument constructor). */
    Object newRecord(Structs.Kind kind) {
        try {
            return echoes.get(kind).type().getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make a " + kind.label(), e);
        }
    }

    @Override
    public Object echo(Structs.Kind kind, Object value) throws Exception {
        return echoes.get(kind).echo(value);
    }

    @Override
    public void putRecord(Structs.Kind kind, Object value) throws Exception {
        echoes.get(kind).put(value);
    }

    @Override
    public Map<String, Object> fromNative(Structs.Kind kind, Object value) {
        return Structs.toMap(kind, value);
    }

    @Override
    public long finish() throws Exception {
        return finish.finish();
    }

    @Override
    public PeerException classify(Throwable failure) {
        return classify.apply(failure);
    }

    @Override
    public void close() {
        close.close();
    }
}
