package dev.ipclab.peer;

import dev.ipclab.linuxipc.LinuxIpc;
import dev.ipclab.peer.frame.PeerException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code --java-binding jni|ffm} (PROTOCOL.md 4.6): fixes how the IPC library reaches the C
 * library, before its first call. The JNI library is the system property
 * {@value LinuxIpc#JNI_LIBRARY_PROPERTY} when given, else {@code peers/native/build/}
 * {@value LinuxIpc#JNI_LIBRARY_NAME} found from the jar's place in the checkout
 * ({@code peers/java/peer/target/}), where the C++ peer's build puts it beside
 * libipclab_native.so.
 */
final class JavaBinding {
    private JavaBinding() {}

    /**
     * @throws PeerException io when the JNI library cannot be loaded (naming its path);
     *     unsupported when libipclab_native.so is there but not it (a build without JNI headers)
     */
    static void apply(boolean jni) throws PeerException {
        if (!jni) {
            LinuxIpc.use(LinuxIpc.Binding.FFM, null);
            return;
        }
        Path library = library();
        if (!Files.exists(library) && Files.exists(library.resolveSibling("libipclab_native.so"))) {
            throw PeerException.unsupported("--java-binding jni: " + library.getParent()
                    + " has libipclab_native.so but no " + LinuxIpc.JNI_LIBRARY_NAME
                    + " (the C++ peer was built without a JDK's JNI headers)");
        }
        try {
            LinuxIpc.use(LinuxIpc.Binding.JNI, library);
        } catch (UnsatisfiedLinkError e) {
            throw PeerException.io("--java-binding jni: cannot load " + library + ": "
                    + e.getMessage(), null);
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
