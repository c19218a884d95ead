package dev.ipclab.peer.rpc;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Empty;
import com.google.protobuf.Message;
import com.google.protobuf.UnsafeByteOperations;
import dev.ipclab.linuxipc.LinuxIpcException;
import dev.ipclab.linuxipc.ResourceUsage;
import dev.ipclab.peer.frame.StreamAck;
import dev.ipclab.peer.server.StreamTally;
import dev.ipclab.rpc.grpc.BenchGrpc;
import dev.ipclab.rpc.grpc.CallReply;
import dev.ipclab.rpc.grpc.CallRequest;
import dev.ipclab.rpc.grpc.Chunk;
import dev.ipclab.rpc.grpc.FinishReply;
import dev.ipclab.rpc.grpc.FinishRequest;
import dev.ipclab.rpc.grpc.Large;
import dev.ipclab.rpc.grpc.Medium;
import dev.ipclab.rpc.grpc.PutRequest;
import dev.ipclab.rpc.grpc.Small;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The gRPC server's service (the methods the generated {@code BenchImplBase} demands): call and
 * the echoes through {@link BenchState}, and the client-streaming {@code Stream} call (section
 * 11.3) counted by a {@link StreamTally} of its own.
 */
final class GrpcService extends BenchGrpc.BenchImplBase {
    private final BenchState bench;

    GrpcService(BenchState bench) {
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
            tally.startCall();
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
                tally.message(data, data.position(), data.remaining(), chunk.getSeq());
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

    /** put (--void): call's check, then the empty reply. */
    @Override
    public void put(PutRequest request, StreamObserver<Empty> reply) {
        bench.put(request.getSeq(), request.getRequest().asReadOnlyByteBuffer());
        empty(reply);
    }

    @Override
    public void putSmall(Small value, StreamObserver<Empty> reply) {
        empty(reply);
    }

    @Override
    public void putMedium(Medium value, StreamObserver<Empty> reply) {
        empty(reply);
    }

    @Override
    public void putLarge(Large value, StreamObserver<Empty> reply) {
        empty(reply);
    }

    private static void empty(StreamObserver<Empty> reply) {
        reply.onNext(Empty.getDefaultInstance());
        reply.onCompleted();
    }

    @Override
    public void finish(FinishRequest request, StreamObserver<FinishReply> reply) {
        reply.onNext(FinishReply.newBuilder().setCorrupted(bench.finish()).build());
        reply.onCompleted();
    }
}
