package dev.ipclab.peer;

/** Who this peer is, as READY and the result file report it. */
final class PeerInfo {
    /** The version of protocol/PROTOCOL.md this peer follows. */
    static final int CONTRACT = 6;
    static final String LANGUAGE = "java";
    /** e.g. "OpenJDK 25.0.3": the JVM that runs us, not the one we were built with. */
    static final String RUNTIME = "OpenJDK " + System.getProperty("java.version");
    /** System.nanoTime() reads CLOCK_MONOTONIC on Linux. */
    static final String CLOCK = "CLOCK_MONOTONIC";

    private PeerInfo() {}

    static long pid() {
        return ProcessHandle.current().pid();
    }
}
