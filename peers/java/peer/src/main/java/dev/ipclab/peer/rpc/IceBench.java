package dev.ipclab.peer.rpc;

import com.zeroc.Ice.Communicator;
import com.zeroc.Ice.ConnectFailedException;
import com.zeroc.Ice.ConnectionLostException;
import com.zeroc.Ice.Current;
import com.zeroc.Ice.InitializationData;
import com.zeroc.Ice.InvocationTimeoutException;
import com.zeroc.Ice.ObjectAdapter;
import com.zeroc.Ice.Properties;
import com.zeroc.Ice.SocketException;
import com.zeroc.Ice.TCPEndpointInfo;
import com.zeroc.Ice.Util;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.rpc.ipclabice.Bench;
import dev.ipclab.rpc.ipclabice.BenchPrx;
import dev.ipclab.rpc.ipclabice.Large;
import dev.ipclab.rpc.ipclabice.Medium;
import dev.ipclab.rpc.ipclabice.Small;
import java.net.InetSocketAddress;
import java.util.List;

/** ZeroC Ice 3.7 over tcp, object identity {@code bench}, Ice.MessageSizeMax raised. */
public final class IceBench {
    private IceBench() {}

    private static Communicator communicator() {
        return communicator(1);
    }

    /** @param serverThreads Ice.ThreadPool.Server.Size (Ice's default is 1) */
    private static Communicator communicator(int serverThreads) {
        InitializationData init = new InitializationData();
        Properties properties = Util.createProperties();
        properties.setProperty("Ice.ThreadPool.Server.Size", Integer.toString(serverThreads));
        // In KiB: 512 MiB, room for a 128 MiB payload each way.
        properties.setProperty("Ice.MessageSizeMax",
                Integer.toString(RpcLimits.MESSAGE_LIMIT / 1024));
        init.properties = properties;
        return Util.initialize(init);
    }

    /**
     * Ice's default server: its server thread pool has one thread (Ice.ThreadPool.Server.Size 1),
     * which reads every connection and runs every call in turn (load's {@code thread-pool-1}).
     *
     * @param nodelay always true here (Ice sets TCP_NODELAY itself)
     */
    public static RpcServer serve(InetSocketAddress address, BenchState bench, boolean nodelay) {
        return serve(address, bench, 1);
    }

    /** load's {@code thread-pool-4}: four server pool threads, so four calls run at once. */
    public static RpcServer serveFourThreads(InetSocketAddress address, BenchState bench,
            boolean nodelay) {
        return serve(address, bench, 4);
    }

    private static RpcServer serve(InetSocketAddress address, BenchState bench, int threads) {
        Communicator communicator = communicator(threads);
        ObjectAdapter adapter = communicator.createObjectAdapterWithEndpoints("ipclab",
                "tcp -h " + address.getAddress().getHostAddress() + " -p " + address.getPort());
        adapter.add(new Servant(bench), Util.stringToIdentity("bench"));
        adapter.activate();
        TCPEndpointInfo info = (TCPEndpointInfo) adapter.getEndpoints()[0].getInfo();
        return new RpcServer(RpcServer.format(address, info.port), communicator::destroy);
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
            return bench.echoed(value);
        }

        @Override
        public Medium echoMedium(Medium value, Current current) {
            return bench.echoed(value);
        }

        @Override
        public Large echoLarge(Large value, Current current) {
            return bench.echoed(value);
        }

        @Override
        public long finish(Current current) {
            return bench.finish();
        }

        @Override
        public void put(long seq, byte[] request, Current current) {
            bench.put(seq, request);
        }

        @Override
        public void putSmall(Small value, Current current) {}

        @Override
        public void putMedium(Medium value, Current current) {}

        @Override
        public void putLarge(Large value, Current current) {}
    }

    public static RpcClient connect(RpcDrive.Options options) {
        InetSocketAddress address = RpcServer.address(options.endpoint());
        Communicator communicator = communicator();
        try {
            BenchPrx proxy = BenchPrx.uncheckedCast(communicator.stringToProxy("bench:tcp -h "
                    + address.getHostString() + " -p " + address.getPort()))
                    .ice_invocationTimeout((int) Math.min(Integer.MAX_VALUE,
                            Math.max(1, options.ioTimeoutNanos() / 1_000_000)));
            // Connect now, before the warm-up.
            proxy.ice_getConnection();
            return new StubClient(proxy::call, proxy::put, proxy::finish, IceBench::classify,
                    communicator::destroy,
                    StubClient.echo(Small.class, proxy::echoSmall, proxy::putSmall),
                    StubClient.echo(Medium.class, proxy::echoMedium, proxy::putMedium),
                    StubClient.echo(Large.class, proxy::echoLarge, proxy::putLarge));
        } catch (RuntimeException e) {
            communicator.destroy();
            throw e;
        }
    }

    private static final StubClient.Kinds KINDS = new StubClient.Kinds(
            List.of(InvocationTimeoutException.class),
            List.of(ConnectFailedException.class, ConnectionLostException.class, SocketException.class));

    private static PeerException classify(Throwable failure) {
        return KINDS.classify("ice: " + failure.getClass().getName() + ": " + failure, failure);
    }
}
