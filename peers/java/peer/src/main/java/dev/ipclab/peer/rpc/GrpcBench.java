package dev.ipclab.peer.rpc;

import dev.ipclab.peer.OneWay;
import dev.ipclab.peer.Payload;
import dev.ipclab.peer.PeerException;
import dev.ipclab.peer.StreamAck;
import dev.ipclab.peer.StreamTally;
import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.ResourceUsage;
import dev.ipclab.rpc.grpc.Chunk;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.UnsafeByteOperations;
import dev.ipclab.rpc.grpc.BenchGrpc;
import dev.ipclab.rpc.grpc.CallReply;
import dev.ipclab.rpc.grpc.CallRequest;
import dev.ipclab.rpc.grpc.FinishReply;
import dev.ipclab.rpc.grpc.FinishRequest;
import dev.ipclab.rpc.grpc.Large;
import dev.ipclab.rpc.grpc.Medium;
import dev.ipclab.rpc.grpc.Small;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * gRPC (grpc-java, Netty shaded transport, insecure). Bytes travel as ByteStrings wrapping our
 * arrays without a copy; the server uses grpc's default executor (a cached thread pool).
 */
public final class GrpcBench {
    private GrpcBench() {}

    public static RpcServer serve(InetSocketAddress address, BenchState bench) throws IOException {
        Server server = NettyServerBuilder.forAddress(address)
                .maxInboundMessageSize(RpcLimits.MESSAGE_LIMIT)
                .addService(new Service(bench))
                .build()
                .start();
        return new RpcServer(RpcServer.format(address, server.getPort()), server::shutdownNow);
    }

    public static RpcClient connect(RpcDrive.Options options) {
        return new Client(channel(options, false), options.ioTimeoutNanos());
    }

    /**
     * The stream pattern's client (section 11.3): one client-streaming call for the warm-up, one
     * for the measured stream.
     *
     * @throws PeerException io when the channel cannot be made
     */
    public static OneWay stream(RpcDrive.Options options, int messageSize, long warmup)
            throws PeerException {
        try {
            return new Streaming(channel(options, true), options, messageSize, warmup);
        } catch (RuntimeException e) {
            throw PeerException.io("cannot connect to " + options.endpoint() + ": "
                    + PeerException.describe(e), e);
        }
    }

    /**
     * A channel connecting now, not inside the first warm-up call's deadline. A stream's channel
     * does not retry: retries would keep every message of a call for replay.
     */
    private static ManagedChannel channel(RpcDrive.Options options, boolean stream) {
        InetSocketAddress address = RpcServer.address(options.endpoint());
        NettyChannelBuilder builder = NettyChannelBuilder
                .forAddress(address.getHostString(), address.getPort())
                .usePlaintext()
                .maxInboundMessageSize(RpcLimits.MESSAGE_LIMIT);
        if (stream) {
            builder.disableRetry();
        }
        ManagedChannel channel = builder.build();
        channel.getState(true);
        return channel;
    }

    private static final class Service extends BenchGrpc.BenchImplBase {
        private final BenchState bench;

        Service(BenchState bench) {
            this.bench = bench;
        }

        @Override
        public void call(CallRequest request, StreamObserver<CallReply> reply) {
            byte[] response;
            try {
                response = bench.call(request.getSeq(), Integer.toUnsignedLong(request.getWanted()),
                        request.getRequest().asReadOnlyByteBuffer());
            } catch (IllegalArgumentException e) {
                reply.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage())
                        .asRuntimeException());
                return;
            }
            reply.onNext(CallReply.newBuilder()
                    .setResponse(UnsafeByteOperations.unsafeWrap(response)).build());
            reply.onCompleted();
        }

        /**
         * One streaming call: its counters start with the call (the CPU figures too) and end at
         * the client's half-close, which the ack answers.
         */
        @Override
        public StreamObserver<Chunk> stream(StreamObserver<dev.ipclab.rpc.grpc.StreamAck> reply) {
            StreamTally tally = bench.streamTally();
            try {
                tally.mark(-1);
            } catch (LinuxIpcException e) {
                reply.onError(Status.INTERNAL.withDescription(e.getMessage()).asRuntimeException());
            }
            return new StreamObserver<>() {
                private boolean started;

                @Override
                public void onNext(Chunk chunk) {
                    if (!started) {
                        tally.expect(chunk.getSeq());
                        started = true;
                    }
                    ByteBuffer data = chunk.getData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                    tally.data(data, data.position(), data.remaining(), chunk.getSeq());
                }

                @Override
                public void onError(Throwable failure) {
                    // The client gave up; nobody waits for an ack.
                }

                @Override
                public void onCompleted() {
                    StreamAck ack;
                    try {
                        ack = tally.end();
                    } catch (LinuxIpcException e) {
                        reply.onError(Status.INTERNAL.withDescription(e.getMessage()).asRuntimeException());
                        return;
                    }
                    ResourceUsage cpu = ack.cpu();
                    reply.onNext(dev.ipclab.rpc.grpc.StreamAck.newBuilder()
                            .setReceived(ack.received()).setGaps(ack.gaps()).setChecksum(ack.checksum())
                            .setUserNs(cpu.userNanos()).setSysNs(cpu.systemNanos())
                            .setVoluntary(cpu.voluntary()).setInvoluntary(cpu.involuntary()).build());
                    reply.onCompleted();
                }
            };
        }

        @Override
        public void echoSmall(Small value, StreamObserver<Small> reply) {
            echo(value, reply);
        }

        @Override
        public void echoMedium(Medium value, StreamObserver<Medium> reply) {
            echo(value, reply);
        }

        @Override
        public void echoLarge(Large value, StreamObserver<Large> reply) {
            echo(value, reply);
        }

        /** Messages are immutable: the fault (tests only) rebuilds one with n2's low bit flipped. */
        @SuppressWarnings("unchecked")
        private <T extends Message> void echo(T value, StreamObserver<T> reply) {
            T echoed = value;
            if (bench.n2Flip() != 0) {
                FieldDescriptor n2 = value.getDescriptorForType().findFieldByName("n2");
                echoed = (T) value.toBuilder().setField(n2, (Integer) value.getField(n2) ^ 1).build();
            }
            reply.onNext(echoed);
            reply.onCompleted();
        }

        @Override
        public void finish(FinishRequest request, StreamObserver<FinishReply> reply) {
            reply.onNext(FinishReply.newBuilder().setCorrupted(bench.finish()).build());
            reply.onCompleted();
        }
    }

    /** Bytes travel in messages; records are protobuf messages filled through descriptors. */
    private static final class Client extends StubClient {
        private final BenchGrpc.BenchBlockingStub stub;
        private final long ioTimeoutNanos;

        Client(ManagedChannel channel, long ioTimeoutNanos) {
            this(channel, BenchGrpc.newBlockingStub(channel)
                    .withMaxInboundMessageSize(RpcLimits.MESSAGE_LIMIT)
                    .withMaxOutboundMessageSize(RpcLimits.MESSAGE_LIMIT), ioTimeoutNanos);
        }

        /** The deadline is per call (section 10.3), so it is set inside the timed region. */
        private Client(ManagedChannel channel, BenchGrpc.BenchBlockingStub stub, long ioTimeoutNanos) {
            super(null, () -> deadline(stub, ioTimeoutNanos)
                            .finish(FinishRequest.getDefaultInstance()).getCorrupted(),
                    GrpcBench::classify, () -> close(channel),
                    echo(Small.class, v -> deadline(stub, ioTimeoutNanos).echoSmall(v)),
                    echo(Medium.class, v -> deadline(stub, ioTimeoutNanos).echoMedium(v)),
                    echo(Large.class, v -> deadline(stub, ioTimeoutNanos).echoLarge(v)));
            this.stub = stub;
            this.ioTimeoutNanos = ioTimeoutNanos;
        }

        @Override
        public Object prepareCall(long sequence, int wanted, byte[] request) {
            return CallRequest.newBuilder().setSeq(sequence).setWanted(wanted)
                    .setRequest(UnsafeByteOperations.unsafeWrap(request)).build();
        }

        @Override
        public Object call(Object prepared) {
            return deadline(stub, ioTimeoutNanos).call((CallRequest) prepared);
        }

        @Override
        public ByteBuffer responseBytes(Object response) {
            ByteString bytes = ((CallReply) response).getResponse();
            return bytes.asReadOnlyByteBuffer();
        }

        @Override
        public Object toNative(Structs.Kind kind, Map<String, Object> record) {
            Message.Builder builder = switch (kind) {
                case SMALL -> Small.newBuilder();
                case MEDIUM -> Medium.newBuilder();
                case LARGE -> Large.newBuilder();
            };
            for (FieldDescriptor field : builder.getDescriptorForType().getFields()) {
                builder.setField(field, record.get(field.getName()));
            }
            return builder.build();
        }

        @Override
        public Map<String, Object> fromNative(Structs.Kind kind, Object value) {
            Message message = (Message) value;
            Map<String, Object> record = new LinkedHashMap<>();
            for (FieldDescriptor field : message.getDescriptorForType().getFields()) {
                Object raw = message.getField(field);
                record.put(field.getName(), raw instanceof List<?> list ? List.copyOf(list) : raw);
            }
            return record;
        }

        private static BenchGrpc.BenchBlockingStub deadline(BenchGrpc.BenchBlockingStub stub,
                long ioTimeoutNanos) {
            return stub.withDeadlineAfter(ioTimeoutNanos, TimeUnit.NANOSECONDS);
        }

        private static void close(ManagedChannel channel) {
            channel.shutdownNow();
            try {
                channel.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A stream over client-streaming calls. A message goes out only when the call is ready
     * (gRPC's flow control), so the stream runs as fast as the transport takes it and the
     * stamped array may be reused: a ready call frames each message before onNext returns.
     */
    private static final class Streaming implements OneWay {
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

        Streaming(ManagedChannel channel, RpcDrive.Options options, int messageSize, long warmup) {
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

        /** Ends the warm-up call (if any), checks its count, and opens the measured one. */
        @Override
        public void mark(long sequence) throws PeerException {
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
                    requests.setOnReadyHandler(Streaming.this::signal);
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
                throw classify(e.getCause());
            } catch (TimeoutException e) {
                throw PeerException.timeout("grpc: no stream ack within --io-timeout", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw PeerException.io("interrupted", e);
            }
        }

        @Override
        public void close() {
            Client.close(channel);
        }
    }

    private static PeerException classify(Throwable failure) {
        if (failure instanceof StatusRuntimeException e) {
            Status status = e.getStatus();
            String text = "grpc " + status.getCode() + ": " + status.getDescription();
            return switch (status.getCode()) {
                case DEADLINE_EXCEEDED -> PeerException.timeout(text, e);
                case UNAVAILABLE -> PeerException.io(text, e);
                default -> PeerException.protocol(text, e);
            };
        }
        return PeerException.protocol(PeerException.describe(failure), failure);
    }
}
