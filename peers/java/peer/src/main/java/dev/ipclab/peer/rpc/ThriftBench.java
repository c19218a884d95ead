package dev.ipclab.peer.rpc;

import dev.ipclab.peer.frame.PeerException;
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
import org.apache.thrift.TBase;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.TFieldIdEnum;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
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
public final class ThriftBench {
    private ThriftBench() {}

    /** thrift-binary: strict read and write. */
    private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory(true, true);
    private static final TProtocolFactory COMPACT = new TCompactProtocol.Factory();

    private static TConfiguration configuration() {
        return TConfiguration.custom().setMaxMessageSize(RpcLimits.MESSAGE_LIMIT)
                .setMaxFrameSize(RpcLimits.MESSAGE_LIMIT).build();
    }

    /** @param nodelay always true here: TSocket sets TCP_NODELAY itself */
    public static RpcServer serveBinary(InetSocketAddress address, BenchState bench,
            boolean nodelay) throws IOException {
        return serve(BINARY, address, bench);
    }

    public static RpcServer serveCompact(InetSocketAddress address, BenchState bench,
            boolean nodelay) throws IOException {
        return serve(COMPACT, address, bench);
    }

    public static RpcClient connectBinary(RpcDrive.Options options) throws IOException {
        return connect(BINARY, options);
    }

    public static RpcClient connectCompact(RpcDrive.Options options) throws IOException {
        return connect(COMPACT, options);
    }

    private static RpcServer serve(TProtocolFactory protocol, InetSocketAddress address,
            BenchState bench) throws IOException {
        TServerSocket socket;
        try {
            socket = new TServerSocket(address);
        } catch (TTransportException e) {
            throw new IOException(e.getMessage(), e);
        }
        TServer server = new TThreadPoolServer(new TThreadPoolServer.Args(socket)
                .processor(new Bench.Processor<>(new Handler(bench)))
                .transportFactory(new RaisedLimits())
                .protocolFactory(protocol));
        Thread.ofPlatform().daemon().name("ipclab-thrift-accept").start(server::serve);
        return new RpcServer(RpcServer.format(address, socket.getServerSocket().getLocalPort()),
                () -> {
                    server.stop();
                    socket.close();
                });
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

    /** Thrift's call and put carry a ByteBuffer; the rest is the shared servant's. */
    private static final class Handler extends BenchServant<Small, Medium, Large>
            implements Bench.Iface {
        Handler(BenchState bench) {
            super(bench);
        }

        @Override
        public ByteBuffer call(long seq, int wanted, ByteBuffer request) {
            return ByteBuffer.wrap(bench.call(seq, Integer.toUnsignedLong(wanted), request));
        }

        @Override
        public void put(long seq, ByteBuffer request) {
            bench.put(seq, request);
        }
    }

    private static RpcClient connect(TProtocolFactory protocol, RpcDrive.Options options)
            throws IOException {
        InetSocketAddress address = RpcServer.address(options.endpoint());
        int timeoutMillis = (int) Math.min(Integer.MAX_VALUE,
                Math.max(1, (options.ioTimeoutNanos() + 999_999) / 1_000_000));
        try {
            TSocket socket = new TSocket(configuration(), address.getHostString(),
                    address.getPort(), timeoutMillis);
            socket.open();
            return new Client(socket, new Bench.Client(protocol.getProtocol(socket)));
        } catch (TTransportException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** Thrift's call takes and returns a ByteBuffer; records are filled by field id. */
    private static final class Client extends StubClient {
        private final Bench.Client stub;

        Client(TSocket socket, Bench.Client stub) {
            super(null, null, stub::finish, ThriftBench::classify, socket::close,
                    echo(Small.class, stub::echoSmall, stub::putSmall),
                    echo(Medium.class, stub::echoMedium, stub::putMedium),
                    echo(Large.class, stub::echoLarge, stub::putLarge));
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
        public void put(Object prepared) throws TException {
            Object[] args = (Object[]) prepared;
            stub.put((Long) args[0], (ByteBuffer) args[2]);
        }

        @Override
        public ByteBuffer responseBytes(Object response) {
            return (ByteBuffer) response;
        }

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public Object toNative(Structs.Kind kind, Map<String, Object> record) {
            TBase value = (TBase) newRecord(kind);
            // Thrift field ids are 1, 2, ... in the order of section 10.2.
            List<Structs.FieldSpec> fields = kind.fields();
            for (int i = 0; i < fields.size(); i++) {
                value.setFieldValue(value.fieldForId(i + 1), record.get(fields.get(i).name()));
            }
            return value;
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
    }

    private static PeerException classify(Throwable failure) {
        String text = "thrift: " + PeerException.describe(failure);
        if (failure instanceof TTransportException e) {
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof SocketTimeoutException) {
                    return PeerException.timeout(text, e);
                }
            }
            return PeerException.io(text, e);
        }
        return PeerException.protocol(text, failure);
    }
}
