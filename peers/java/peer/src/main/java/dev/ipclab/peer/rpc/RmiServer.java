package dev.ipclab.peer.rpc;

import dev.ipclab.peer.frame.PeerException;
import java.io.IOException;
import java.io.Serializable;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.rmi.ConnectException;
import java.rmi.ConnectIOException;
import java.rmi.NotBoundException;
import java.rmi.RemoteException;
import java.rmi.UnmarshalException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.RMIClientSocketFactory;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.UnicastRemoteObject;
import java.util.Map;

/**
 * Java RMI (JRMP): a registry and the exported object, both on sockets bound to the server's
 * address only, the object bound as {@code ipclab-bench}; READY gives the registry's port.
 */
public final class RmiServer {
    static final String NAME = "ipclab-bench";

    private RmiServer() {}

    /** @param nodelay always true here: the client's sockets get TCP_NODELAY from the stub */
    public static RpcServer serve(InetSocketAddress address, BenchState bench, boolean nodelay)
            throws IOException {
        InetAddress host = address.getAddress();
        // Stubs carry this host: without it they name the machine's external address.
        System.setProperty("java.rmi.server.hostname", host.getHostAddress());
        LocalSockets registrySockets = new LocalSockets(host);
        Registry registry = LocateRegistry.createRegistry(address.getPort(), new NoDelayClient(),
                registrySockets);
        Impl impl = new Impl(bench);
        RmiBench stub = (RmiBench) UnicastRemoteObject.exportObject(impl, 0, new NoDelayClient(),
                new LocalSockets(host));
        registry.rebind(NAME, stub);
        return new RpcServer(RpcServer.format(address, registrySockets.port), () -> {
            UnicastRemoteObject.unexportObject(impl, true);
            UnicastRemoteObject.unexportObject(registry, true);
        });
    }

    /** Server sockets on one address only; remembers the port the first one got. */
    private static final class LocalSockets implements RMIServerSocketFactory {
        private final InetAddress host;
        volatile int port;

        LocalSockets(InetAddress host) {
            this.host = host;
        }

        @Override
        public ServerSocket createServerSocket(int requested) throws IOException {
            ServerSocket socket = new ServerSocket(requested, 64, host);
            if (port == 0) {
                port = socket.getLocalPort();
            }
            return socket;
        }

        // One factory per listening socket: RMI shares a socket between equal factories.
        @Override
        public boolean equals(Object other) {
            return other == this;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }
    }

    /** Travels inside the stub: the client's sockets get TCP_NODELAY, as in every framework here. */
    private static final class NoDelayClient implements RMIClientSocketFactory, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            Socket socket = new Socket(host, port);
            socket.setTcpNoDelay(true);
            return socket;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof NoDelayClient;
        }

        @Override
        public int hashCode() {
            return NoDelayClient.class.hashCode();
        }
    }

    /** The exported object: the bench behind the interface RMI calls. */
    private static final class Impl
            extends BenchServant<RmiRecords.Small, RmiRecords.Medium, RmiRecords.Large>
            implements RmiBench {
        Impl(BenchState bench) {
            super(bench);
        }

        @Override
        public RmiRecords.Small echoSmall(RmiRecords.Small v) {
            return bench.n2Flip() == 0 ? v : flipped(Structs.Kind.SMALL, v, RmiRecords.Small.class);
        }

        @Override
        public RmiRecords.Medium echoMedium(RmiRecords.Medium v) {
            return bench.n2Flip() == 0 ? v : flipped(Structs.Kind.MEDIUM, v, RmiRecords.Medium.class);
        }

        @Override
        public RmiRecords.Large echoLarge(RmiRecords.Large v) {
            return bench.n2Flip() == 0 ? v : flipped(Structs.Kind.LARGE, v, RmiRecords.Large.class);
        }

        /** Records are immutable: the fault rebuilds one (tests only). */
        private static <T> T flipped(Structs.Kind kind, Object value, Class<T> type) {
            Map<String, Object> record = Structs.toMap(kind, value);
            record.put("n2", (Integer) record.get("n2") ^ 1);
            return Structs.toObject(type, record);
        }
    }

    public static RpcClient connect(RpcDrive.Options options) throws IOException {
        InetSocketAddress address = RpcServer.address(options.endpoint());
        // JRMP has no per-call deadline: this bounds each wait for a reply on the client's sockets.
        System.setProperty("sun.rmi.transport.tcp.responseTimeout",
                Long.toString(Math.max(1, options.ioTimeoutNanos() / 1_000_000)));
        RmiBench stub;
        try {
            Registry registry = LocateRegistry.getRegistry(address.getHostString(), address.getPort());
            stub = (RmiBench) registry.lookup(NAME);
        } catch (NotBoundException e) {
            throw new IOException("nothing bound as " + NAME, e);
        }
        // RMI keeps no handle to close: its idle connections time out on their own.
        return new StubClient(stub::call, stub::put, stub::finish, RmiServer::classify, () -> { },
                StubClient.echo(RmiRecords.Small.class, stub::echoSmall, stub::putSmall),
                StubClient.echo(RmiRecords.Medium.class, stub::echoMedium, stub::putMedium),
                StubClient.echo(RmiRecords.Large.class, stub::echoLarge, stub::putLarge));
    }

    private static PeerException classify(Throwable failure) {
        String text = "rmi: " + PeerException.describe(failure);
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SocketTimeoutException) {
                return PeerException.timeout(text, failure);
            }
        }
        if (failure instanceof ConnectException || failure instanceof ConnectIOException
                || (failure instanceof UnmarshalException u && u.getCause() instanceof IOException)) {
            return PeerException.io(text, failure);
        }
        return PeerException.protocol(text, failure);
    }
}
