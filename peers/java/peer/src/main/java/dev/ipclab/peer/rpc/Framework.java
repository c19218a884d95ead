package dev.ipclab.peer.rpc;

import java.io.IOException;
import java.net.InetSocketAddress;

/** The RPC mechanisms this peer implements (section 10.3), by their contract names. */
public enum Framework {
    GRPC("grpc"),
    THRIFT_BINARY("thrift-binary"),
    THRIFT_COMPACT("thrift-compact"),
    REST("rest"),
    RMI("rmi"),
    ICE("ice"),
    CORBA("corba");

    private final String label;

    Framework(String label) {
        this.label = label;
    }

    /** @return null when this peer has no such RPC mechanism */
    public static Framework byName(String name) {
        for (Framework framework : values()) {
            if (framework.label.equals(name)) {
                return framework;
            }
        }
        return null;
    }

    public String label() {
        return label;
    }

    /** Every framework here carries MAX_PAYLOAD each way. */
    int maxPayload() {
        return RpcLimits.MAX_PAYLOAD;
    }

    /**
     * Starts this framework's server on a {@code HOST:PORT} endpoint (port 0: any), accepting
     * calls when this returns.
     */
    public RpcServer serve(String endpoint, long seed, boolean flipResponseByte) throws IOException {
        InetSocketAddress address = address(endpoint);
        BenchState bench = new BenchState(seed, flipResponseByte);
        return switch (this) {
            case GRPC -> GrpcBench.serve(address, bench);
            case THRIFT_BINARY, THRIFT_COMPACT -> ThriftBench.serve(this, address, bench);
            case REST -> RestServer.serve(address, bench);
            case RMI -> RmiServer.serve(address, bench);
            case ICE -> IceBench.serve(address, bench);
            case CORBA -> CorbaBench.serve(address, bench);
        };
    }

    /** Connects once (or prepares the one connection the first call opens). */
    RpcClient connect(RpcDrive.Options options) throws RpcException {
        if (this == CORBA) {
            // The endpoint is the server's IOR; CorbaBench reports its own errors.
            return CorbaBench.connect(options.endpoint(), options.ioTimeoutNanos());
        }
        try {
            InetSocketAddress address = address(options.endpoint());
            return switch (this) {
                case GRPC -> GrpcBench.connect(address, options.ioTimeoutNanos());
                case THRIFT_BINARY, THRIFT_COMPACT -> ThriftBench.connect(this, address,
                        options.ioTimeoutNanos());
                case REST -> RestClients.connect(options.httpClient(), address,
                        options.ioTimeoutNanos());
                case RMI -> RmiServer.connect(address, options.ioTimeoutNanos());
                case ICE -> IceBench.connect(address, options.ioTimeoutNanos());
                case CORBA -> throw new AssertionError("connected above");
            };
        } catch (IOException | com.zeroc.Ice.LocalException e) {
            throw RpcException.io("cannot connect to " + options.endpoint() + ": "
                    + RpcException.describe(e), e);
        }
    }

    /** {@code HOST:PORT} (already checked by the command line), unresolved hosts resolved here. */
    static InetSocketAddress address(String endpoint) {
        int colon = endpoint.lastIndexOf(':');
        String host = endpoint.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new InetSocketAddress(host, Integer.parseInt(endpoint.substring(colon + 1)));
    }

    /** READY's {@code HOST:PORT} for a bound address: an IP literal. */
    static String format(String host, int port) {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
