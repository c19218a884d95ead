package dev.ipclab.peer;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** The few libc calls the JDK has no API for, made through the FFM API (java.lang.foreign). */
final class Posix {
    private static final int EEXIST = 17;
    private static final int ENOENT = 2;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle MKFIFO = downcall("mkfifo",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Linker.Option.captureCallState("errno"));
    private static final MethodHandle UMASK = downcall("umask",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle STRERROR = downcall("strerror",
            FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private Posix() {}

    /** Creates a FIFO; fails with FileAlreadyExistsException if anything is at the path. */
    static void mkfifo(Path path, int mode) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int rc = (int) MKFIFO.invokeExact(state, arena.allocateFrom(path.toString()), mode);
            if (rc != 0) {
                throw failure("mkfifo", path, (int) ERRNO.get(state, 0L));
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("mkfifo downcall failed", t);
        }
    }

    /** Sets the process's file mode creation mask and returns the previous one. */
    static int umask(int mask) {
        try {
            return (int) UMASK.invokeExact(mask);
        } catch (Throwable t) {
            throw new IllegalStateException("umask downcall failed", t);
        }
    }

    static String strerror(int errno) {
        try {
            MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
            return text.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    private static IOException failure(String call, Path path, int errno) {
        String reason = call + ": " + strerror(errno);
        return switch (errno) {
            case EEXIST -> new FileAlreadyExistsException(path.toString(), null, reason);
            case ENOENT -> new NoSuchFileException(path.toString(), null, reason);
            default -> new IOException(path + ": " + reason);
        };
    }

    private static MethodHandle downcall(String name, FunctionDescriptor descriptor,
            Linker.Option... options) {
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new IllegalStateException("libc has no " + name));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }
}
