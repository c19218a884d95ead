package dev.ipclab.peer;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.ipclab.peer.transport.Downcalls;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/** Raw descriptor calls tests need and the JDK lacks: pipe(2), open(2) with O_NONBLOCK, close(2). */
final class Fds {
    static final int O_RDONLY = 0;
    static final int O_WRONLY = 1;
    static final int O_NONBLOCK = 04000;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle PIPE = handle("pipe", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle OPEN = handle("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private Fds() {}

    /** @return {read end, write end} */
    static int[] pipe() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fds = arena.allocate(JAVA_INT, 2);
            if ((int) PIPE.invokeExact(fds) != 0) {
                throw new IllegalStateException("pipe(2) failed");
            }
            return new int[] {fds.getAtIndex(JAVA_INT, 0), fds.getAtIndex(JAVA_INT, 1)};
        } catch (Throwable t) {
            throw Downcalls.unexpected(t);
        }
    }

    /** @return the descriptor, or -1 (e.g. ENXIO: a FIFO opened O_WRONLY|O_NONBLOCK has no reader) */
    static int open(Path path, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) OPEN.invokeExact(arena.allocateFrom(path.toString()), flags);
        } catch (Throwable t) {
            throw Downcalls.unexpected(t);
        }
    }

    static void close(int fd) {
        int rc;
        try {
            rc = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw Downcalls.unexpected(t);
        }
        if (rc != 0) {
            throw new IllegalStateException("close(" + fd + ") failed");
        }
    }

    private static MethodHandle handle(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor);
    }
}
