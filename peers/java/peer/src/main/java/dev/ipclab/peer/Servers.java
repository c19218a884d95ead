package dev.ipclab.peer;

import dev.ipclab.peer.burst.BurstOptions;
import dev.ipclab.peer.burst.BurstServer;
import dev.ipclab.peer.burst.ServerModel;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.server.Server;
import java.io.IOException;
import java.io.PrintStream;

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
        Client.checkNoDelay(mechanism, options.nodelay());
        JavaBinding.apply(options.jniBinding());
        try {
            if (options.burst() != null) {
                return BurstServer.open(serverModel(mechanism, options.burst()), options.endpoint(),
                        options.seed(), options.burst(), diagnostics);
            }
            return mechanism.serve(options, diagnostics);
        } catch (IOException e) {
            throw PeerException.io("cannot listen on " + options.endpoint() + ": "
                    + PeerException.describe(e), e);
        }
    }

    /** @throws PeerException unsupported: a model this peer or mechanism does not have */
    private static ServerModel serverModel(Mechanism mechanism, BurstOptions options)
            throws PeerException {
        return ServerModel.byName(options.serverModel())
                .filter(mechanism.serverModels()::contains)
                .orElseThrow(() -> PeerException.unsupported("server model '"
                        + options.serverModel() + "' is not implemented for " + mechanism.label()
                        + " (this peer has: " + mechanism.serverModels().stream()
                        .map(ServerModel::label).toList() + ")"));
    }
}
