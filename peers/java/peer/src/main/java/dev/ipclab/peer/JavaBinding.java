package dev.ipclab.peer;

import dev.ipclab.linuxipc.LinuxIpc;
import dev.ipclab.peer.frame.PeerException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code --java-binding ffm|jni|jni-copy} (PROTOCOL.md 4.6): fixes how the IPC library reaches
 * the C library, before its first call. The JNI library is the system property
 * {@value LinuxIpc#JNI_LIBRARY_PROPERTY} when given, else {@code peers/native/build/}
 * {@value LinuxIpc#JNI_LIBRARY_NAME} found from the jar's place in the checkout
 * ({@code peers/java/peer/target/}), where the C++ peer's build puts it beside
 * libipclab_native.so.
 */
final class JavaBinding {
    private JavaBinding() {}

    /** The flag's value: ffm (the default), jni or jni-copy; else a usage error. */
    static LinuxIpc.Binding parse(String value) {
        try {
            return LinuxIpc.Binding.of(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--java-binding must be ffm, jni or jni-copy, got '"
                    + value + "'");
        }
    }

    /**
     * sysv-shm has no byte[] path (its messages are written into the segment in place), so
     * jni-copy has nothing to copy there.
     *
     * @throws PeerException unsupported: jni-copy over sysv-shm
     */
    static void check(LinuxIpc.Binding binding, String mechanism) throws PeerException {
        if (binding == LinuxIpc.Binding.JNI_COPY && mechanism.equals("sysv-shm")) {
            throw PeerException.unsupported("--java-binding jni-copy copies the byte[] of "
                    + "message queue calls (sysv-mq, posix-mq); sysv-shm has none");
        }
    }

    /**
     * @throws PeerException io when the JNI library cannot be loaded (naming its path);
     *     unsupported when libipclab_native.so is there but not it (a build without JNI headers)
     */
    static void apply(LinuxIpc.Binding binding) throws PeerException {
        if (binding == LinuxIpc.Binding.FFM) {
            LinuxIpc.use(binding, null);
            return;
        }
        String flag = "--java-binding " + binding.label();
        Path library = library();
        if (!Files.exists(library) && Files.exists(library.resolveSibling("libipclab_native.so"))) {
            throw PeerException.unsupported(flag + ": " + library.getParent()
                    + " has libipclab_native.so but no " + LinuxIpc.JNI_LIBRARY_NAME
                    + " (the C++ peer was built without a JDK's JNI headers)");
        }
        try {
            LinuxIpc.use(binding, library);
        } catch (UnsatisfiedLinkError e) {
            throw PeerException.io(flag + ": cannot load " + library + ": " + e.getMessage(), null);
        }
    }

    static Path library() {
        String given = System.getProperty(LinuxIpc.JNI_LIBRARY_PROPERTY);
        if (given != null && !given.isEmpty()) {
            return Path.of(given).toAbsolutePath();
        }
        return checkout().resolve("peers/native/build").resolve(LinuxIpc.JNI_LIBRARY_NAME);
    }

    /** The checkout: four levels above target/, the jar's directory (or target/classes' parent). */
    private static Path checkout() {
        try {
            Path code = Path.of(JavaBinding.class.getProtectionDomain().getCodeSource()
                    .getLocation().toURI()).toAbsolutePath();
            Path target = code.getParent();  // target/ for both the jar and target/classes
            return target.getParent().getParent().getParent().getParent();
        } catch (URISyntaxException | RuntimeException e) {
            return Path.of("").toAbsolutePath();
        }
    }
}
