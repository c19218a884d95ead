package dev.ipclab.peer.rpc;

import dev.ipclab.rpc.thrift.Bench;
import dev.ipclab.rpc.thrift.Large;
import dev.ipclab.rpc.thrift.Medium;
import dev.ipclab.rpc.thrift.Small;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TBase;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.TFieldIdEnum;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TEndpointTransport;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.TTransportFactory;

/**
 * Apache Thrift 0.17: TSocket + TBinaryProtocol (strict both ways) or TCompactProtocol; the
 * server is the standard TThreadPoolServer. Java's Thrift has no TBufferedTransport: its TSocket
 * buffers both directions itself and is flushed once per message, which is the same unframed wire
 * as TBufferedTransport elsewhere. TSocket sets TCP_NODELAY on both sides.
 */
final class ThriftBench {
    private ThriftBench() {}

    private static TProtocolFactory protocol(Framework framework) {
        return framework == Framework.THRIFT_BINARY
                ? new TBinaryProtocol.Factory(true, true)
                : new TCompactProtocol.Factory();
    }

    private static TConfiguration configuration() {
        return TConfiguration.custom().setMaxMessageSize(RpcLimits.MESSAGE_LIMIT)
                .setMaxFrameSize(RpcLimits.MESSAGE_LIMIT).build();
    }

    static RpcServer serve(Framework framework, InetSocketAddress address, BenchState bench)
            throws IOException {
        TServerSocket socket;
        try {
            socket = new TServerSocket(address);
        } catch (TTransportException e) {
            throw new IOException(e.getMessage(), e);
        }
        TServer server = new TThreadPoolServer(new TThreadPoolServer.Args(socket)
                .processor(new Bench.Processor<>(new Handler(bench)))
                .transportFactory(new RaisedLimits())
                .protocolFactory(protocol(framework)));
        CountDownLatch stopped = new CountDownLatch(1);
        Thread.ofPlatform().daemon().name("ipclab-thrift-accept").start(() -> {
            server.serve();
            stopped.countDown();
        });
        String endpoint = Framework.format(address.getAddress().getHostAddress(),
                socket.getServerSocket().getLocalPort());
        return new RpcServer() {
            @Override
            public String endpoint() {
                return endpoint;
            }

            @Override
            public void awaitTermination() throws InterruptedException {
                stopped.await();
            }

            @Override
            public void close() {
                server.stop();
                socket.close();
            }
        };
    }

    /**
     * TServerSocket makes each accepted TSocket with a default TConfiguration (100 MB messages):
     * raise it before the first read.
     */
    private static final class RaisedLimits extends TTransportFactory {
        @Override
        public TTransport getTransport(TTransport base) throws TTransportException {
            TConfiguration configuration = base.getConfiguration();
            configuration.setMaxMessageSize(RpcLimits.MESSAGE_LIMIT);
            configuration.setMaxFrameSize(RpcLimits.MESSAGE_LIMIT);
            if (base instanceof TEndpointTransport endpoint) {
                endpoint.updateKnownMessageSize(0);
            }
            return base;
        }
    }

    private static final class Handler implements Bench.Iface {
        private final BenchState bench;

        Handler(BenchState bench) {
            this.bench = bench;
        }

        @Override
        public ByteBuffer call(long seq, int wanted, ByteBuffer request) {
            return ByteBuffer.wrap(bench.call(seq, Integer.toUnsignedLong(wanted), request));
        }

        @Override
        public Small echoSmall(Small value) {
            return value.setN2(value.getN2() ^ bench.n2Flip());
        }

        @Override
        public Medium echoMedium(Medium value) {
            return value.setN2(value.getN2() ^ bench.n2Flip());
        }

        @Override
        public Large echoLarge(Large value) {
            return value.setN2(value.getN2() ^ bench.n2Flip());
        }

        @Override
        public long finish() {
            return bench.finish();
        }
    }

    static RpcClient connect(Framework framework, InetSocketAddress address, long ioTimeoutNanos)
            throws IOException {
        int timeoutMillis = (int) Math.min(Integer.MAX_VALUE,
                Math.max(1, (ioTimeoutNanos + 999_999) / 1_000_000));
        try {
            TSocket socket = new TSocket(configuration(), address.getHostString(),
                    address.getPort(), timeoutMillis);
            socket.open();
            TProtocol protocol = protocol(framework).getProtocol(socket);
            return new Client(socket, new Bench.Client(protocol));
        } catch (TTransportException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    private static final class Client implements RpcClient {
        private final TSocket socket;
        private final Bench.Client stub;

        Client(TSocket socket, Bench.Client stub) {
            this.socket = socket;
            this.stub = stub;
        }

        @Override
        public Object prepareCall(long sequence, int wanted, byte[] request) {
            return new Object[] {sequence, wanted, ByteBuffer.wrap(request)};
        }

        @Override
        public Object call(Object prepared) throws TException {
            Object[] args = (Object[]) prepared;
            return stub.call((Long) args[0], (Integer) args[1], (ByteBuffer) args[2]);
        }

        @Override
        public ByteBuffer responseBytes(Object response) {
            return (ByteBuffer) response;
        }

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public Object toNative(Structs.Kind kind, Map<String, Object> record) {
            TBase value = switch (kind) {
                case SMALL -> new Small();
                case MEDIUM -> new Medium();
                case LARGE -> new Large();
            };
            // Thrift field ids are 1, 2, ... in the order of section 10.2.
            List<Structs.FieldSpec> fields = kind.fields();
            for (int i = 0; i < fields.size(); i++) {
                value.setFieldValue(value.fieldForId(i + 1), record.get(fields.get(i).name()));
            }
            return value;
        }

        @Override
        public Object echo(Structs.Kind kind, Object value) throws TException {
            return switch (kind) {
                case SMALL -> stub.echoSmall((Small) value);
                case MEDIUM -> stub.echoMedium((Medium) value);
                case LARGE -> stub.echoLarge((Large) value);
            };
        }

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public Map<String, Object> fromNative(Structs.Kind kind, Object value) {
            TBase base = (TBase) value;
            Map<String, Object> record = new LinkedHashMap<>();
            List<Structs.FieldSpec> fields = kind.fields();
            for (int i = 0; i < fields.size(); i++) {
                TFieldIdEnum id = base.fieldForId(i + 1);
                record.put(fields.get(i).name(), base.getFieldValue(id));
            }
            return record;
        }

        @Override
        public long finish() throws TException {
            return stub.finish();
        }

        @Override
        public RpcException classify(Throwable failure) {
            String text = "thrift: " + RpcException.describe(failure);
            if (failure instanceof TTransportException e) {
                for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                    if (cause instanceof SocketTimeoutException) {
                        return RpcException.timeout(text, e);
                    }
                }
                return RpcException.io(text, e);
            }
            if (failure instanceof TApplicationException e) {
                return RpcException.protocol(text, e);
            }
            return RpcException.protocol(text, failure);
        }

        @Override
        public void close() {
            socket.close();
        }
    }
}
