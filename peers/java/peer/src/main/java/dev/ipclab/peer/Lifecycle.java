package dev.ipclab.peer;

import java.io.IOException;
import java.io.InputStream;

/**
 * How the process ends (PROTOCOL.md section 5). A server ends on SIGTERM, SIGINT or end of file
 * on stdin, removing what it created and exiting 0. Every exit goes through {@link #exit}, which
 * halts the JVM: a shutdown hook cannot otherwise choose the exit status (the JVM would report
 * 143 for SIGTERM), and our own exits must not run that hook's "exit 0".
 */
final class Lifecycle {
    private static Runnable cleanup = () -> {};
    private static boolean cleanedUp;

    private Lifecycle() {}

    /** What to remove before the process ends: the server's socket file or FIFOs. */
    static synchronized void cleanUpWith(Runnable action) {
        cleanup = action;
    }

    /** SIGTERM and SIGINT (and SIGHUP) end a server cleanly, even while it is blocked. */
    static void endOnSignals() {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> exit(0), "ipclab-shutdown"));
    }

    /** End of file on stdin ends a server cleanly: its orchestrator is gone. */
    static void endOnStdinEof(InputStream stdin) {
        Thread.ofPlatform().daemon().name("ipclab-stdin-watch").start(() -> {
            drain(stdin);
            exit(0);
        });
    }

    /** Cleans up once, flushes, and ends the process with this status. Never returns. */
    static void exit(int code) {
        cleanUp();
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(code);
    }

    /**
     * Runs the cleanup once; synchronized so that a second exit (a signal during stdin EOF)
     * waits for the first cleanup to finish before halting.
     */
    private static synchronized void cleanUp() {
        if (!cleanedUp) {
            cleanedUp = true;
            cleanup.run();
        }
    }

    /** Returns at end of file. An unreadable stdin is treated the same: nobody can stop us then. */
    private static void drain(InputStream stdin) {
        byte[] sink = new byte[512];
        try {
            while (stdin.read(sink) >= 0) {
                // The orchestrator never writes here; whatever comes is ignored.
            }
        } catch (IOException e) {
            // Same as end of file.
        }
    }
}
