package dev.ipclab.linuxipc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * One rename from a fixed path to another that never replaces what is there:
 * {@code renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE)}, atomic like {@code rename}
 * (the JDK's atomic move replaces, its other move checks first and then renames). The paths are
 * encoded once, so {@link #run()} allocates nothing. Not thread-safe; close to free the paths.
 */
public final class NoReplaceRename implements AutoCloseable {
    private static final int AT_FDCWD = -100;
    private static final int RENAME_NOREPLACE = 1;

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment from;
    private final MemorySegment to;

    public NoReplaceRename(Path from, Path to) {
        this.from = arena.allocateFrom(from.toString());
        this.to = arena.allocateFrom(to.toString());
    }

    /**
     * Renames, unless the target exists.
     *
     * @return true if renamed, false if the target exists ({@code EEXIST}); nothing changed then
     * @throws LinuxIpcException any other failure (e.g. {@code ENOENT}: the source is missing)
     */
    public boolean run() throws LinuxIpcException {
        int rc;
        do {
            try {
                rc = (int) Libc.RENAMEAT2.invokeExact(Libc.state(), AT_FDCWD, from, AT_FDCWD, to,
                        RENAME_NOREPLACE);
            } catch (Throwable t) {
                throw Libc.rethrow(t);
            }
        } while (rc < 0 && Libc.errno() == Libc.EINTR);
        if (rc == 0) {
            return true;
        }
        if (Libc.errno() == Libc.EEXIST) {
            return false;
        }
        throw Libc.failure("renameat2");
    }

    @Override
    public void close() {
        arena.close();
    }
}
