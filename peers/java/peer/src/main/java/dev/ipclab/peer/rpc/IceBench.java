package dev.ipclab.peer.rpc;

import com.zeroc.Ice.Communicator;
import com.zeroc.Ice.ConnectFailedException;
import com.zeroc.Ice.ConnectionLostException;
import com.zeroc.Ice.Current;
import com.zeroc.Ice.InitializationData;
import com.zeroc.Ice.InvocationTimeoutException;
import com.zeroc.Ice.LocalException;
import com.zeroc.Ice.ObjectAdapter;
import com.zeroc.Ice.Properties;
import com.zeroc.Ice.SocketException;
import com.zeroc.Ice.TCPEndpointInfo;
import com.zeroc.Ice.Util;
import dev.ipclab.rpc.ipclabice.Bench;
import dev.ipclab.rpc.ipclabice.BenchPrx;
import dev.ipclab.rpc.ipclabice.Large;
import dev.ipclab.rpc.ipclabice.Medium;
import dev.ipclab.rpc.ipclabice.Small;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;

/** ZeroC Ice 3.7 over tcp, object identity {@code bench}, Ice.MessageSizeMax raised. */
final class IceBench {
    private IceBench() {}

    private static Communicator communicator() {
        InitializationData init = new InitializationData();
        Properties properties = Util.createProperties();
        // In KiB: 512 MiB, room for a 128 MiB payload each way.
        properties.setProperty("Ice.MessageSizeMax",
                Integer.toString(RpcLimits.MESSAGE_LIMIT / 1024));
        init.properties = properties;
        return Util.initialize(init);
    }

    static RpcServer serve(InetSocketAddress address, BenchState bench) {
        Communicator communicator = communicator();
        String host = address.getAddress().getHostAddress();
        ObjectAdapter adapter = communicator.createObjectAdapterWithEndpoints("ipclab",
                "tcp -h " + host + " -p " + address.getPort());
        adapter.add(new Servant(bench), Util.stringToIdentity("bench"));
        adapter.activate();
        TCPEndpointInfo info = (TCPEndpointInfo) adapter.getEndpoints()[0].getInfo();
        String endpoint = Framework.format(host, info.port);
        return new RpcServer() {
            @Override
            public String endpoint() {
                return endpoint;
            }

            @Override
            public void awaitTermination() {
                communicator.waitForShutdown();
            }

            @Override
            public void close() {
                communicator.destroy();
            }
        };
    }

    private static final class Servant implements Bench {
        private final BenchState bench;

        Servant(BenchState bench) {
            this.bench = bench;
        }

        @Override
        public byte[] call(long seq, int wanted, byte[] request, Current current) {
            return bench.call(seq, Integer.toUnsignedLong(wanted), request);
        }

        @Override
        public Small echoSmall(Small value, Current current) {
            value.n2 ^= bench.n2Flip();
            return value;
        }

        @Override
        public Medium echoMedium(Medium value, Current current) {
            value.n2 ^= bench.n2Flip();
            return value;
        }

        @Override
        public Large echoLarge(Large value, Current current) {
            value.n2 ^= bench.n2Flip();
            return value;
        }

        @Override
        public long finish(Current current) {
            return bench.finish();
        }
    }

    static RpcClient connect(InetSocketAddress address, long ioTimeoutNanos) {
        Communicator communicator = communicator();
        try {
            BenchPrx proxy = BenchPrx.uncheckedCast(communicator.stringToProxy("bench:tcp -h "
                    + address.getHostString() + " -p " + address.getPort()))
                    .ice_invocationTimeout((int) Math.min(Integer.MAX_VALUE,
                            Math.max(1, ioTimeoutNanos / 1_000_000)));
            // Connect now, before the warm-up.
            proxy.ice_getConnection();
            return new Client(communicator, proxy);
        } catch (RuntimeException e) {
            communicator.destroy();
            throw e;
        }
    }

    private static final class Client implements RpcClient {
        private final Communicator communicator;
        private final BenchPrx proxy;

        Client(Communicator communicator, BenchPrx proxy) {
            this.communicator = communicator;
            this.proxy = proxy;
        }

        @Override
        public Object prepareCall(long sequence, int wanted, byte[] request) {
            return new Object[] {sequence, wanted, request};
        }

        @Override
        public Object call(Object prepared) {
            Object[] args = (Object[]) prepared;
            return proxy.call((Long) args[0], (Integer) args[1], (byte[]) args[2]);
        }

        @Override
        public ByteBuffer responseBytes(Object response) {
            return ByteBuffer.wrap((byte[]) response);
        }

        @Override
        public Object toNative(Structs.Kind kind, Map<String, Object> record) {
            Class<?> type = switch (kind) {
                case SMALL -> Small.class;
                case MEDIUM -> Medium.class;
                case LARGE -> Large.class;
            };
            return Structs.toObject(type, record);
        }

        @Override
        public Object echo(Structs.Kind kind, Object value) {
            return switch (kind) {
                case SMALL -> proxy.echoSmall((Small) value);
                case MEDIUM -> proxy.echoMedium((Medium) value);
                case LARGE -> proxy.echoLarge((Large) value);
            };
        }

        @Override
        public Map<String, Object> fromNative(Structs.Kind kind, Object value) {
            return Structs.toMap(kind, value);
        }

        @Override
        public long finish() {
            return proxy.finish();
        }

        @Override
        public RpcException classify(Throwable failure) {
            String text = "ice: " + failure.getClass().getName() + ": " + failure;
            if (failure instanceof InvocationTimeoutException) {
                return RpcException.timeout(text, failure);
            }
            if (failure instanceof ConnectFailedException || failure instanceof ConnectionLostException
                    || failure instanceof SocketException) {
                return RpcException.io(text, failure);
            }
            if (failure instanceof LocalException) {
                return RpcException.protocol(text, failure);
            }
            return RpcException.protocol(text, failure);
        }

        @Override
        public void close() {
            communicator.destroy();
        }
    }
}
