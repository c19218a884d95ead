package dev.ipclab.peer;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.server.Server;
import java.io.PrintStream;

/**
 * The ipclab peer for Java: {@code serve} answers round trips, {@code drive} measures them
 * (protocol/PROTOCOL.md).
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        Lifecycle.exit(run(args, System.err));
    }

    /** @return the exit code of PROTOCOL.md section 8 */
    static int run(String[] args, PrintStream err) {
        try {
            return switch (Cli.parse(args)) {
                case ServeOptions serve -> serve(serve, err);
                case DriveOptions drive -> new Client(drive, err).run();
                case Capabilities capabilities -> capabilities.print(System.out);
            };
        } catch (UsageException e) {
            err.println(e.line());
            return ErrorKind.USAGE.exitCode();
        } catch (RuntimeException | Error e) {
            err.println(new PeerException(ErrorKind.INTERNAL, PeerException.describe(e)).line());
            return ErrorKind.INTERNAL.exitCode();
        }
    }

    /** Make the endpoint, remove it on the way out, announce READY, serve until told to stop. */
    private static int serve(ServeOptions options, PrintStream err) {
        Lifecycle.endOnSignals();
        Server server;
        try {
            server = Servers.open(options, err);
        } catch (PeerException e) {
            err.println(e.line());
            return e.kind().exitCode();
        }
        Lifecycle.cleanUpWith(server::close);
        // Watched only from here on, so that a failure to listen is reported, not raced by EOF.
        Lifecycle.endOnStdinEof(System.in);
        Ready.of(server.endpoint(), options.mechanism(), server.serverModel(), server.broker())
                .print(System.out);
        return server.serve();
    }
}
