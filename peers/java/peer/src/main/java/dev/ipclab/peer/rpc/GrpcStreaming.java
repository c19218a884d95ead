package dev.ipclab.peer.rpc;

import com.google.protobuf.UnsafeByteOperations;
import dev.ipclab.linuxipc.ResourceUsage;
import dev.ipclab.peer.frame.Payload;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.frame.StreamAck;
import dev.ipclab.peer.pattern.OneWay;
import dev.ipclab.rpc.grpc.BenchGrpc;
import dev.ipclab.rpc.grpc.Chunk;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * gRPC's stream pattern client (section 11.3): a stream over client-streaming calls, one for the
 * warm-up and one for the measured stream. A message goes out only when the call is ready
 * (gRPC's flow control), so the stream runs as fast as the transport takes it and the
 * stamped array may be reused: a ready call frames each message before onNext returns.
 */
final class GrpcStreaming implements OneWay {
    private final ManagedChannel channel;
    private final BenchGrpc.BenchStub stub;
    private final long ioTimeoutNanos;
    private final long warmup;
    private final byte[] payload;
    private final ByteBuffer stamping;
    private final long head;
    private final Object ready = new Object();
    private ClientCallStreamObserver<Chunk> call;
    private CompletableFuture<dev.ipclab.rpc.grpc.StreamAck> ack;

    GrpcStreaming(ManagedChannel channel, RpcDrive.Options options, int messageSize, long warmup) {
        this.channel = channel;
        this.stub = BenchGrpc.newStub(channel).withMaxOutboundMessageSize(RpcLimits.MESSAGE_LIMIT);
        this.ioTimeoutNanos = options.ioTimeoutNanos();
        this.warmup = warmup;
        this.payload = Payload.baseBytes(options.seed(), Payload.REQUEST_STREAM, messageSize);
        this.stamping = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        this.head = Payload.head(options.seed(), Payload.REQUEST_STREAM);
    }

    @Override
    public void data(long sequence) throws PeerException {
        if (call == null) {
            begin();
        }
        awaitReady();
        Payload.stamp(stamping, 0, payload.length, head, sequence);
        call.onNext(Chunk.newBuilder().setSeq(sequence)
                .setData(UnsafeByteOperations.unsafeWrap(payload)).build());
    }

    /** Section 11.3 has no MARK: the warm-up call opens with its first message, if any. */
    @Override
    public void start(long sequence, long count) {}

    /** Ends the warm-up call (if any), checks its count, and opens the measured one. */
    @Override
    public void mark(long sequence, long count) throws PeerException {
        if (call != null) {
            dev.ipclab.rpc.grpc.StreamAck warm = complete();
            if (warm.getReceived() != warmup || warm.getGaps() != 0) {
                throw PeerException.mismatch("payload mismatch: the server received "
                        + warm.getReceived() + " of " + warmup + " warm-up messages");
            }
        }
        begin();
    }

    @Override
    public StreamAck end(long sequence) throws PeerException {
        dev.ipclab.rpc.grpc.StreamAck a = complete();
        return new StreamAck(a.getReceived(), a.getGaps(), a.getChecksum(),
                new ResourceUsage(a.getUserNs(), a.getSysNs(), a.getVoluntary(), a.getInvoluntary()));
    }

    private void begin() {
        CompletableFuture<dev.ipclab.rpc.grpc.StreamAck> answer = new CompletableFuture<>();
        ack = answer;
        stub.stream(new ClientResponseObserver<Chunk, dev.ipclab.rpc.grpc.StreamAck>() {
            @Override
            public void beforeStart(ClientCallStreamObserver<Chunk> requests) {
                call = requests;
                requests.setOnReadyHandler(GrpcStreaming.this::signal);
            }

            @Override
            public void onNext(dev.ipclab.rpc.grpc.StreamAck value) {
                answer.complete(value);
            }

            @Override
            public void onError(Throwable failure) {
                answer.completeExceptionally(failure);
                signal();
            }

            @Override
            public void onCompleted() {
                answer.completeExceptionally(new IllegalStateException("no ack"));
            }
        });
    }

    private void signal() {
        synchronized (ready) {
            ready.notifyAll();
        }
    }

    /** Waits until the call takes a message, at most --io-timeout. */
    private void awaitReady() throws PeerException {
        if (call.isReady()) {
            return;
        }
        long deadline = System.nanoTime() + ioTimeoutNanos;
        synchronized (ready) {
            while (!call.isReady()) {
                if (ack.isDone()) {
                    complete();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw PeerException.timeout("grpc: the stream call took no message within "
                            + "--io-timeout", null);
                }
                try {
                    ready.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw PeerException.io("interrupted", e);
                }
            }
        }
    }

    /** Half-closes the call and waits for its ack, at most --io-timeout. */
    private dev.ipclab.rpc.grpc.StreamAck complete() throws PeerException {
        call.onCompleted();
        call = null;
        try {
            return ack.get(ioTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw GrpcBench.classify(e.getCause());
        } catch (TimeoutException e) {
            throw PeerException.timeout("grpc: no stream ack within --io-timeout", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw PeerException.io("interrupted", e);
        }
    }

    @Override
    public void close() {
        GrpcBench.close(channel);
    }
}
