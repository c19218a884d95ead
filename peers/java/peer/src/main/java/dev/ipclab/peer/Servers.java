package dev.ipclab.peer;

import dev.ipclab.peer.burst.BurstOptions;
import dev.ipclab.peer.burst.BurstServer;
import dev.ipclab.peer.burst.ServerModel;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.rpc.RpcModel;
import dev.ipclab.peer.rpc.RpcServerAdapter;
import dev.ipclab.peer.server.Fault;
import dev.ipclab.peer.server.QueueLoadServer;
import dev.ipclab.peer.server.Server;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Set;

/** {@code serve}: the server of the mechanism asked for, or a burst server (section 11.4). */
final class Servers {
    private Servers() {}

    /**
     * Creates the endpoint (listens, binds, makes the FIFOs or opens the pipes).
     *
     * @throws PeerException unsupported mechanism, or io when the endpoint cannot be made
     */
    static Server open(ServeOptions options, PrintStream diagnostics) throws PeerException {
        Mechanism mechanism = Mechanism.byName(options.mechanism()).orElseThrow(() ->
                PeerException.unsupported("unknown mechanism " + options.mechanism()));
        if (!mechanism.serves()) {
            throw PeerException.unsupported(mechanism.label()
                    + " is an in-process call: there is no server (drive only)");
        }
        if (mechanism.unavailable() != null) {
            throw PeerException.unsupported(mechanism.label() + ": " + mechanism.unavailable());
        }
        Client.checkNoDelay(mechanism, options.nodelay());
        Delivery.check(mechanism, options.delivery());
        checkFault(mechanism, options);
        checkListening(mechanism, options);
        JavaBinding.check(options.javaBinding(), mechanism.label());
        JavaBinding.apply(options.javaBinding());
        try {
            if (options.burst() != null && options.burst().load()
                    && !mechanism.rpcModels().isEmpty()) {
                return rpcLoad(mechanism, options);
            }
            if (options.burst() != null && options.burst().load()
                    && mechanism.queueLoad() != null) {
                return queueLoad(mechanism, options, diagnostics);
            }
            if (options.burst() != null) {
                return BurstServer.open(serverModel(mechanism, options.burst()),
                        mechanism.serverSockets(), options.endpoint(), options.seed(),
                        options.burst(), diagnostics);
            }
            return mechanism.serve(options, diagnostics);
        } catch (IOException e) {
            throw PeerException.io("cannot listen on " + options.endpoint() + ": "
                    + PeerException.describe(e), e);
        }
    }

    /**
     * The load servers' faults (stall, capacity:N) are the C++ peer's; this peer's load server
     * injects none (PROTOCOL.md 11.5.1), except over RPC, where it is the rr service with
     * flip-response-byte (11.5.4).
     *
     * @throws PeerException unsupported
     */
    private static void checkFault(Mechanism mechanism, ServeOptions options)
            throws PeerException {
        boolean load = options.burst() != null && options.burst().load();
        Fault allowed = load && mechanism.carriesRecords() ? Fault.FLIP_RESPONSE_BYTE : Fault.NONE;
        if (options.fault().loadOnly()
                || (load && options.fault() != Fault.NONE && options.fault() != allowed)) {
            throw PeerException.unsupported("--fault " + options.fault().label() + " is not "
                    + "implemented by this peer's " + (load ? "load server" : "servers")
                    + (load ? " over " + mechanism.label() : ""));
        }
    }

    /**
     * --read-size at a value other than its default and the rr server's --backlog given at all
     * (section 1, version 6): --read-size for a stream server over a byte stream (tcp, uds,
     * pipe, fifo), --backlog for the rr server's listening socket (tcp, uds); a burst or load
     * server has its own --backlog (in its options) and serves no stream.
     *
     * @throws PeerException unsupported
     */
    private static void checkListening(Mechanism mechanism, ServeOptions options)
            throws PeerException {
        boolean own = options.burst() != null;
        if (options.readSize() != 0 && (own || !mechanism.readsByteStream())) {
            throw PeerException.unsupported("--read-size is for the stream server over a byte "
                    + "stream (tcp, uds, pipe, fifo), not " + (own ? "a --server-model server"
                            : mechanism.label()));
        }
        if (!own && options.backlog() != 0 && !mechanism.listens()) {
            throw PeerException.unsupported("--backlog is for a listening socket (tcp, uds), not "
                    + mechanism.label());
        }
    }

    /**
     * A load server over RPC (11.5.4): the framework's own server in the configuration asked
     * for; the burst servers' tuning (--workers, --backlog) is not the framework's.
     *
     * @throws PeerException unsupported: another configuration, or --workers / --backlog
     */
    private static Server rpcLoad(Mechanism mechanism, ServeOptions options)
            throws PeerException, IOException {
        String name = options.burst().serverModel();
        RpcModel model = mechanism.rpcModels().stream().filter(m -> m.name().equals(name))
                .findFirst().orElseThrow(() -> PeerException.unsupported("server model '" + name
                        + "' is not implemented for load over " + mechanism.label()
                        + " (this peer has: " + mechanism.loadModelNames() + ")"));
        if (options.burst().tuned()) {
            throw PeerException.unsupported("--workers and --backlog are not taken by "
                    + mechanism.label() + "'s own server (load over RPC)");
        }
        return RpcServerAdapter.open(model.factory(), options.endpoint(), options.seed(),
                options.fault(), options.nodelay(), model.name());
    }

    /**
     * A load server over a message queue (11.5.5): iterative, or thread-pool with --workers
     * threads; it has no listening socket to tune.
     *
     * @throws PeerException unsupported: another model, --backlog or --nodelay
     */
    private static Server queueLoad(Mechanism mechanism, ServeOptions options,
            PrintStream diagnostics) throws PeerException, IOException {
        ServerModel model = serverModel(mechanism, options.burst());
        for (String flag : List.of(BurstOptions.BACKLOG, BurstOptions.NODELAY)) {
            if (options.burst().tuning().contains(flag)) {
                throw PeerException.unsupported("--" + flag + " is not taken by a load server over "
                        + mechanism.label() + " (a message queue has no socket)");
            }
        }
        boolean pooled = model == ServerModel.THREAD_POOL;
        return QueueLoadServer.open(mechanism.queueLoad().listen(options.endpoint()),
                model.label(), pooled ? options.burst().workers() : 1, pooled, options.seed(),
                diagnostics);
    }

    /** @throws PeerException unsupported: a model this peer or mechanism does not have */
    private static ServerModel serverModel(Mechanism mechanism, BurstOptions options)
            throws PeerException {
        Set<ServerModel> models = options.load() ? mechanism.loadModels() : mechanism.serverModels();
        return ServerModel.byName(options.serverModel()).filter(models::contains)
                .orElseThrow(() -> PeerException.unsupported("server model '"
                        + options.serverModel() + "' is not implemented for "
                        + (options.load() ? "load over " : "") + mechanism.label()
                        + " (this peer has: " + models.stream().map(ServerModel::label).toList()
                        + ")"));
    }
}
