package dev.ipclab.peer;

import dev.ipclab.peer.Mechanism.Bind;
import dev.ipclab.peer.Mechanism.Connect;
import dev.ipclab.peer.Mechanism.Listen;
import dev.ipclab.peer.Mechanism.Serve;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.inprocess.InProcess;
import dev.ipclab.peer.pattern.Exchange;
import dev.ipclab.peer.pattern.StreamExchange;
import dev.ipclab.peer.rpc.RpcClient;
import dev.ipclab.peer.rpc.RpcDrive;
import dev.ipclab.peer.rpc.RpcModel;
import dev.ipclab.peer.rpc.RpcServer;
import dev.ipclab.peer.rpc.RpcServerAdapter;
import dev.ipclab.peer.server.DatagramServer;
import dev.ipclab.peer.server.Responder;
import dev.ipclab.peer.server.StreamServer;
import dev.ipclab.peer.transport.ClientLink;
import dev.ipclab.peer.transport.DatagramPort;
import dev.ipclab.peer.transport.Shm;
import java.io.IOException;
import java.util.function.Function;

/**
 * The kinds of {@link Behaviour} the rows of {@link Mechanism} are made of: frames over a byte
 * stream or messages, frames as datagrams, shared memory, in-process calls, RPC middleware. Each
 * factory wires a kind's server and clients once, so a row names only its transport's calls.
 */
final class Behaviours {
    private Behaviours() {}

    /**
     * Frames over a byte stream or messages: {@link StreamServer}; {@link Exchange} (rr),
     * {@link StreamExchange} (stream).
     */
    static Behaviour stream(Listen listen, Connect connect) {
        return frames((options, diagnostics) -> new StreamServer(
                listen.listen(options.endpoint(), options.settings()), responder(options), diagnostics,
                options.readSize()), connect);
    }

    /** One frame per datagram: {@link DatagramServer}; the same clients. */
    static Behaviour datagrams(Bind bind, Connect connect) {
        return frames((options, diagnostics) -> new DatagramServer(bind.bind(options.endpoint(),
                options.settings()), responder(options), diagnostics), connect);
    }

    /** A message library server's two sockets (ZeroMQ 4.8, NNG 4.9), bound. */
    interface PairBind {
        DatagramPort bind(String endpoint) throws IOException;
    }

    /** A client of a library server's two sockets. */
    interface PairConnect {
        /**
         * @param endpoint tcp: READY's two addresses; ipc: the server's PATH
         * @param largestAnswer the largest answer it waits for (its REQ's receive limit)
         * @param messageSize a stream's message size (its PUSH's window); 0 for rr
         */
        ClientLink connect(String endpoint, boolean ipc, long ioTimeoutNanos, long largestAnswer,
                int messageSize) throws IOException;
    }

    /**
     * A message library's REQ/REP and PUSH/PULL sockets, served as datagrams are
     * ({@link DatagramServer}): bind makes the server's two, connect the client's.
     */
    static Behaviour socketPair(PairBind bind, PairConnect connect, boolean ipc) {
        return datagrams((e, s) -> bind.bind(e), (e, s) -> connect.connect(e, ipc,
                s.ioTimeoutNanos(), s.largestAnswer(), s.messageSize()));
    }

    private static Behaviour frames(Serve serve, Connect connect) {
        return new Behaviour(serve, options -> Exchange.open(link(connect, options), options.seed(),
                options.requestSize(), options.responseSize()), false, false, connect)
                .streaming(options -> StreamExchange.open(link(connect, options), options.seed(),
                        options.stream().messageSize(), options.ioTimeoutNanos()));
    }

    /** Connects a client's link, or fails with an io error naming the endpoint. */
    private static ClientLink link(Connect connect, DriveOptions options) throws PeerException {
        try {
            return connect.connect(options.endpoint(), options.settings());
        } catch (IOException e) {
            throw PeerException.io("cannot connect to " + options.endpoint() + ": "
                    + PeerException.describe(e), e);
        }
    }

    static Behaviour shm(Shm.Wait wait) {
        return stream((e, s) -> Shm.listen(wait, e, s.spinNanos()),
                (e, s) -> Shm.connect(wait, e, s.ioTimeoutNanos(), s.spinNanos()));
    }

    /** @param maker the call a case's study flags (--mock, --jni-arrays) ask for */
    static Behaviour inProcess(Function<Study, InProcess.Maker> maker,
            boolean nativeLibrary) {
        return new Behaviour(null, options -> InProcess.open(maker.apply(options.study()),
                options.nativeLibrary(), options.seed(), options.requestSize(),
                options.responseSize()), false, nativeLibrary, null);
    }

    static Behaviour rpc(RpcServer.Factory serve, RpcClient.Factory connect) {
        return new Behaviour((options, diagnostics) -> RpcServerAdapter.open(serve,
                options.endpoint(), options.seed(), options.fault(), options.nodelay()),
                options -> RpcDrive.open(connect, options.rpc()), true, false, null);
    }

    /**
     * An RPC mechanism with load (11.5.4): {@code rr} is the configuration its rr server runs,
     * served under load too; {@code more} are the framework's other configurations.
     */
    static Behaviour rpc(RpcClient.Factory connect, RpcModel rr, RpcModel... more) {
        return rpc(rr.factory(), connect).rpcLoading(connect, rr, more);
    }

    private static Responder responder(ServeOptions options) {
        return new Responder(options.seed(), options.fault());
    }
}
