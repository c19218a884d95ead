package dev.ipclab.peer.rpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.UnsafeByteOperations;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.pattern.OneWay;
import dev.ipclab.rpc.grpc.BenchGrpc;
import dev.ipclab.rpc.grpc.CallReply;
import dev.ipclab.rpc.grpc.CallRequest;
import dev.ipclab.rpc.grpc.FinishRequest;
import dev.ipclab.rpc.grpc.Large;
import dev.ipclab.rpc.grpc.Medium;
import dev.ipclab.rpc.grpc.PutRequest;
import dev.ipclab.rpc.grpc.Small;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * gRPC (grpc-java, Netty shaded transport, insecure). Bytes travel as ByteStrings wrapping our
 * arrays without a copy; the rr server uses grpc's default executor (a cached thread pool). Here:
 * the server, the channel and the rr client; the service is {@link GrpcService}, the stream
 * client {@link GrpcStreaming}.
 */
public final class GrpcBench {
    private GrpcBench() {}

    /**
     * @param nodelay false (--nodelay off): the accepted sockets keep Nagle on (Netty's
     *     TCP_NODELAY child option, which Netty otherwise sets true)
     */
    public static RpcServer serve(InetSocketAddress address, BenchState bench, boolean nodelay)
            throws IOException {
        return serve(address, builder(address, bench, nodelay));
    }

    /**
     * load's {@code direct-executor} (11.5.4): every call runs on the Netty event loop thread
     * that read it, with no hand-off to the default executor's cached pool; a call's handler
     * then holds up the other calls of that loop (grpc-java's advice for handlers that never
     * block, which ours do not).
     */
    public static RpcServer serveDirect(InetSocketAddress address, BenchState bench,
            boolean nodelay) throws IOException {
        return serve(address, builder(address, bench, nodelay).directExecutor());
    }

    private static NettyServerBuilder builder(InetSocketAddress address, BenchState bench,
            boolean nodelay) {
        return NettyServerBuilder.forAddress(address)
                .maxInboundMessageSize(RpcLimits.MESSAGE_LIMIT)
                .withChildOption(ChannelOption.TCP_NODELAY, nodelay)
                .addService(new GrpcService(bench));
    }

    private static RpcServer serve(InetSocketAddress address, NettyServerBuilder builder)
            throws IOException {
        Server server = builder.build().start();
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
            return new GrpcStreaming(channel(options, true), options, messageSize, warmup);
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
                .maxInboundMessageSize(RpcLimits.MESSAGE_LIMIT)
                .withOption(ChannelOption.TCP_NODELAY, options.nodelay());
        if (stream) {
            builder.disableRetry();
        }
        ManagedChannel channel = builder.build();
        channel.getState(true);
        return channel;
    }

    /** Bytes travel in messages; records are protobuf messages filled through descriptors. */
    private static final class Client extends StubClient {
        private final ManagedChannel channel;
        private final BenchGrpc.BenchBlockingStub stub;
        private final long ioTimeoutNanos;

        Client(ManagedChannel channel, long ioTimeoutNanos) {
            this(channel, BenchGrpc.newBlockingStub(channel)
                    .withMaxInboundMessageSize(RpcLimits.MESSAGE_LIMIT)
                    .withMaxOutboundMessageSize(RpcLimits.MESSAGE_LIMIT), ioTimeoutNanos);
        }

        /** READY: the channel's HTTP/2 connection is up; a failed attempt is not retried here. */
        @Override
        public void awaitConnected(long timeoutNanos) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + timeoutNanos;
            for (ConnectivityState state = channel.getState(true); state != ConnectivityState.READY;
                    state = channel.getState(true)) {
                if (state == ConnectivityState.TRANSIENT_FAILURE || state == ConnectivityState.SHUTDOWN) {
                    throw new IOException("grpc channel " + state);
                }
                CountDownLatch changed = new CountDownLatch(1);
                channel.notifyWhenStateChanged(state, changed::countDown);
                long left = deadline - System.nanoTime();
                if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
                    throw new IOException("grpc channel not connected after "
                            + timeoutNanos / 1_000_000 + " ms (" + state + ")");
                }
            }
        }

        /** The deadline is per call (section 10.3), so it is set inside the timed region. */
        private Client(ManagedChannel channel, BenchGrpc.BenchBlockingStub stub, long ioTimeoutNanos) {
            super(null, null, () -> deadline(stub, ioTimeoutNanos)
                            .finish(FinishRequest.getDefaultInstance()).getCorrupted(),
                    GrpcBench::classify, () -> GrpcBench.close(channel),
                    echo(Small.class, v -> deadline(stub, ioTimeoutNanos).echoSmall(v),
                            v -> deadline(stub, ioTimeoutNanos).putSmall(v)),
                    echo(Medium.class, v -> deadline(stub, ioTimeoutNanos).echoMedium(v),
                            v -> deadline(stub, ioTimeoutNanos).putMedium(v)),
                    echo(Large.class, v -> deadline(stub, ioTimeoutNanos).echoLarge(v),
                            v -> deadline(stub, ioTimeoutNanos).putLarge(v)));
            this.channel = channel;
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
        public Object preparePut(long sequence, byte[] request) {
            return PutRequest.newBuilder().setSeq(sequence)
                    .setRequest(UnsafeByteOperations.unsafeWrap(request)).build();
        }

        @Override
        public void put(Object prepared) {
            deadline(stub, ioTimeoutNanos).put((PutRequest) prepared);
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
    }

    /** Ends a channel's calls and connections, waiting up to 5 s. */
    static void close(ManagedChannel channel) {
        channel.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The contract's error kind of a failed call: deadline timeout, unavailable io, else protocol. */
    static PeerException classify(Throwable failure) {
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
