package dev.ipclab.linuxipc;

import java.lang.foreign.Arena;
import java.nio.file.Path;

/** System V keys from a path ({@code ftok}). */
public final class Ftok {
    private Ftok() {}

    /**
     * Derives a System V key from an existing file's inode and device and a project id.
     *
     * @param path an existing file
     * @param projectId the low 8 bits are used; must not be 0
     * @return the key
     * @throws LinuxIpcException {@code ENOENT} if the file does not exist
     */
    public static int ftok(Path path, int projectId) throws LinuxIpcException {
        try (Arena arena = Arena.ofConfined()) {
            int key = (int) Libc.FTOK.invokeExact(Libc.state(), arena.allocateFrom(path.toString()),
                    projectId);
            if (key == -1) {
                throw new LinuxIpcException("ftok " + path, Libc.errno());
            }
            return key;
        } catch (Throwable t) {
            throw Libc.failure(t);
        }
    }
}
