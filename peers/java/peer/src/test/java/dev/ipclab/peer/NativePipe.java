package dev.ipclab.peer;

/**
 * An anonymous pipe made with pipe(2), as the orchestrator makes them: raw descriptors in this
 * process, reachable through /proc/self/fd like inherited ones.
 */
final class NativePipe implements AutoCloseable {
    final int read;
    final int write;
    private boolean closed;

    NativePipe() {
        int[] fds = Fds.pipe();
        read = fds[0];
        write = fds[1];
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Fds.close(read);
            Fds.close(write);
        }
    }
}
