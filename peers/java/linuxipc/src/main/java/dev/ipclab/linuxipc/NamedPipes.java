package dev.ipclab.linuxipc;

import java.nio.file.Path;

/** Named pipes (FIFOs), which the JDK cannot create. */
public final class NamedPipes {
    private NamedPipes() {}

    /**
     * Creates a FIFO ({@code mkfifo}); the process umask applies to the mode.
     *
     * @param path where
     * @param mode permission bits, e.g. {@code 0600}
     * @throws LinuxIpcException {@code EEXIST} if anything is at the path, {@code ENOENT} if its
     *     directory is missing, {@code EACCES}
     */
    public static void mkfifo(Path path, int mode) throws LinuxIpcException {
        Native.check(Native.BINDING.mkfifo(path.toString(), mode & 07777), "mkfifo " + path);
    }

    /**
     * Sets the process's file mode creation mask ({@code umask}).
     *
     * @param mask the new mask
     * @return the previous mask
     */
    public static int umask(int mask) {
        try {
            return (int) Libc.UMASK.invokeExact(mask);
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }
}
