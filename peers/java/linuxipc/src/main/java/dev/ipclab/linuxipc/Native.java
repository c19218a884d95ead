package dev.ipclab.linuxipc;

/**
 * The holder of the process's binding. Initialised at the library's first native call, which
 * fixes the choice made with {@link LinuxIpc#use} (or the system properties) for good; being
 * static final, the field is a constant to the JIT.
 */
final class Native {
    static final NativeBinding BINDING = LinuxIpc.fix();

    private Native() {}

    /** rc when it is a success, else the failure of the call (rc is -errno). */
    static long check(long rc, String call) throws LinuxIpcException {
        if (rc < 0) {
            throw new LinuxIpcException(call, (int) -rc);
        }
        return rc;
    }

    /** The loop condition of a call restarted after EINTR (rc is -errno on failure). */
    static boolean again(long rc, String call) throws LinuxIpcException {
        return again(rc, call, Libc.EINTR);
    }

    /**
     * Like {@link #again(long, String)}, but a failure with errno {@code expired} (a timed call's
     * timeout) also ends the loop; the caller sees it as the negative rc.
     */
    static boolean again(long rc, String call, int expired) throws LinuxIpcException {
        if (rc >= 0 || rc == -expired) {
            return false;
        }
        if (rc == -Libc.EINTR) {
            return true;
        }
        throw new LinuxIpcException(call, (int) -rc);
    }
}
