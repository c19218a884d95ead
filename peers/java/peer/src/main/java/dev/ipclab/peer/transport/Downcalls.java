package dev.ipclab.peer.transport;

/** What the FFM downcalls of this peer share (libzmq's here; the tests' own libc calls). */
public final class Downcalls {
    private Downcalls() {}

    /**
     * Rethrows what a downcall's {@code invokeExact} can throw besides its result: a
     * RuntimeException or Error as it is (an Error thrown here), anything else wrapped.
     */
    public static RuntimeException unexpected(Throwable e) {
        if (e instanceof RuntimeException r) {
            return r;
        }
        if (e instanceof Error err) {
            throw err;
        }
        return new IllegalStateException(e);
    }
}
