package dev.ipclab.peer.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * A C library of the system called through FFM (libzmq, 4.8; libnng, 4.9), loaded by its soname
 * when the class holding it is first used, and the downcall handles made from it. A missing
 * library or symbol is not an error here: the first one is kept as {@link #problem()}, every
 * handle is then null, and only that library's mechanisms are unavailable (capabilities leaves
 * their rows out; a client or server asked for one answers unsupported).
 */
final class SharedLibrary {
    private static final Linker LINKER = Linker.nativeLinker();
    /** errno saved right after the call, before the JVM's own calls can overwrite it. */
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    /** Longest C string read from a library (a version, an error message). */
    private static final long LONGEST_STRING = 4096;

    private final String name;
    private final String remedy;
    /** Null when the library cannot be loaded. */
    private final SymbolLookup symbols;
    /** Written only while the holder's static initializer runs, which publishes it. */
    private String problem;

    /**
     * @param name how users know it ({@code "libzmq"})
     * @param soname what the dynamic linker loads ({@code "libzmq.so.5"})
     * @param remedy what to do without it ({@code "install the Debian package libzmq5: make setup"})
     */
    private SharedLibrary(String name, String soname, String remedy) {
        this.name = name;
        this.remedy = remedy;
        SymbolLookup found = null;
        try {
            found = SymbolLookup.libraryLookup(soname, Arena.global());
        } catch (IllegalArgumentException e) { // no such library on the loader's path
            problem = name + " (" + soname + ") cannot be loaded: " + e.getMessage() + " ("
                    + remedy + ")";
        }
        symbols = found;
    }

    /** The library, or its {@link #problem()}. */
    static SharedLibrary load(String name, String soname, String remedy) {
        return new SharedLibrary(name, soname, remedy);
    }

    /** The handle of function, or null once anything of this library is missing. */
    MethodHandle function(String function, FunctionDescriptor descriptor) {
        return make(function, descriptor, false);
    }

    /** As {@link #function}, the C errno captured into the state segment passed first. */
    MethodHandle functionWithErrno(String function, FunctionDescriptor descriptor) {
        return make(function, descriptor, true);
    }

    private MethodHandle make(String function, FunctionDescriptor descriptor, boolean errno) {
        if (problem != null) {
            return null;
        }
        var symbol = symbols.find(function);
        if (symbol.isEmpty()) {
            problem = name + " has no " + function + " (" + remedy + ")";
            return null;
        }
        return errno ? LINKER.downcallHandle(symbol.get(), descriptor, ERRNO)
                : LINKER.downcallHandle(symbol.get(), descriptor);
    }

    /** Why this library cannot run in this process, or null when every handle was made. */
    String problem() {
        return problem;
    }

    /** A NUL-terminated string the library owns (its version, an error's text), never written. */
    static String string(MemorySegment text) {
        return text.reinterpret(LONGEST_STRING).getString(0);
    }
}
