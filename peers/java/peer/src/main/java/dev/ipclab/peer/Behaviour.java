package dev.ipclab.peer;

import dev.ipclab.peer.burst.BurstServer;
import dev.ipclab.peer.burst.Listening;
import dev.ipclab.peer.burst.ServerModel;
import dev.ipclab.peer.load.FrameCalls;
import dev.ipclab.peer.load.QueueCalls;
import dev.ipclab.peer.pattern.Exchange;
import dev.ipclab.peer.rpc.RpcClient;
import dev.ipclab.peer.rpc.RpcLoad;
import dev.ipclab.peer.rpc.RpcModel;
import dev.ipclab.peer.server.QueueLoadServer;
import dev.ipclab.peer.transport.QueueLoad;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What a {@link Mechanism} does: serve (null: drive only), open a client session per pattern
 * (null: the pattern is not carried), carry the structured records of section 10.2, need
 * --native-library; and, for tests, connect a link. Load (11.5): the burst models its load server
 * runs, or an RPC framework's own server configurations, or a message queue's server and its
 * queues ({@code queue}), and how a load client connects.
 */
record Behaviour(Mechanism.Serve serve, Mechanism.Open open, Mechanism.Open shortLived,
        Mechanism.OpenStream stream, boolean records, boolean nativeLibrary, Mechanism.Connect link,
        Set<ServerModel> serverModels, Set<ServerModel> loadModels, Mechanism.OpenLoad loadCalls,
        Listening.Maker sockets, List<RpcModel> rpcModels, QueueLoad queue) {
    Behaviour(Mechanism.Serve serve, Mechanism.Open open, boolean records, boolean nativeLibrary,
            Mechanism.Connect link) {
        this(serve, open, null, null, records, nativeLibrary, link,
                EnumSet.noneOf(ServerModel.class), EnumSet.noneOf(ServerModel.class), null, null,
                List.of(), null);
    }


    Behaviour withShort(Mechanism.Open open) {
        return new Behaviour(serve, this.open, open, stream, records, nativeLibrary, link,
                serverModels, loadModels, loadCalls, sockets, rpcModels, queue);
    }

    /** short over frames: a connection per round trip, END over one more; or one-way (11.2). */
    Behaviour dialing(Mechanism.Dialer dialer) {
        return withShort(options -> Exchange.dialing(
                dialer.dialer(options.endpoint(), options.settings()), options.seed(),
                options.requestSize(), options.responseSize(), options.study().oneWay()));
    }

    Behaviour streaming(Mechanism.OpenStream stream) {
        return new Behaviour(serve, open, shortLived, stream, records, nativeLibrary, link,
                serverModels, loadModels, loadCalls, sockets, rpcModels, queue);
    }

    /** burst (section 11.4): the models its server runs ({@link BurstServer}), how it listens. */
    Behaviour bursting(Set<ServerModel> models, Listening.Maker sockets) {
        return new Behaviour(serve, open, shortLived, stream, records, nativeLibrary, link,
                models, loadModels, loadCalls, sockets, rpcModels, queue);
    }

    /**
     * load (11.5): the models its load server serves with, how that server listens (the
     * burst server's, {@link BurstServer}), and how a load client connects.
     */
    Behaviour loading(Set<ServerModel> models, Listening.Maker sockets, Mechanism.Connect connect) {
        return new Behaviour(serve, open, shortLived, stream, records, nativeLibrary, link,
                serverModels, models, (options, c) -> new FrameCalls(connect.connect(
                        options.endpoint(), options.settings()), options.seed(),
                        options.requestSize(), options.responseSize()), sockets, rpcModels, queue);
    }

    /**
     * load over RPC (11.5.4): the framework's own server configurations, and a client
     * object of the framework per connection (the rr client's factory, called C times).
     *
     * @param rr the configuration the rr server runs, first; more: the framework's others
     */
    Behaviour rpcLoading(RpcClient.Factory connect, RpcModel rr, RpcModel... more) {
        List<RpcModel> models = new ArrayList<>(List.of(more));
        models.addFirst(rr);
        return new Behaviour(serve, open, shortLived, stream, records, nativeLibrary, link,
                serverModels, loadModels, (options, c) -> RpcLoad.connect(connect, options.rpc()),
                sockets, List.copyOf(models), queue);
    }

    /**
     * load over a message queue (11.5.5): its own server ({@link QueueLoadServer}, iterative or
     * thread-pool) on the queues it makes, and section 2's frames with connection c's reply
     * address per client connection.
     */
    Behaviour queueLoading(QueueLoad queue) {
        return new Behaviour(serve, open, shortLived, stream, records, nativeLibrary, link,
                serverModels, EnumSet.of(ServerModel.ITERATIVE, ServerModel.THREAD_POOL),
                (options, c) -> QueueCalls.connect(n -> queue.connect(options.endpoint(), n,
                        options.responseSize(), options.ioTimeoutNanos()), c,
                        options.seed(), options.requestSize(), options.responseSize()),
                sockets, rpcModels, queue);
    }
}
