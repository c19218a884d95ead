package dev.ipclab.linuxipc;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Chooses how the library reaches the C library, once per process: through the FFM API (the
 * default) or through JNI ({@code libipclab_linuxipc_jni.so}). The Java API is the same either
 * way. Choose before the library's first native call; the choice is then fixed, so a call never
 * looks its binding up. Without a call to {@link #use}, the system properties
 * {@value #BINDING_PROPERTY} ({@code ffm} or {@code jni}) and {@value #JNI_LIBRARY_PROPERTY}
 * (the library's path) decide.
 */
public final class LinuxIpc {
    /** System property naming the binding when {@link #use} was not called. */
    public static final String BINDING_PROPERTY = "dev.ipclab.linuxipc.binding";
    /** System property giving the JNI library's path when {@link #use} was not called. */
    public static final String JNI_LIBRARY_PROPERTY = "dev.ipclab.linuxipc.jni.library";
    /** The JNI library's file name. */
    public static final String JNI_LIBRARY_NAME = "libipclab_linuxipc_jni.so";

    /** The two bindings. */
    public enum Binding {
        /** java.lang.foreign downcalls. */
        FFM,
        /** JNI native methods of {@value #JNI_LIBRARY_NAME}. */
        JNI;

        /**
         * The binding of a name.
         *
         * @param name {@code ffm} or {@code jni}
         * @return the binding
         * @throws IllegalArgumentException for any other name
         */
        public static Binding of(String name) {
            return switch (name) {
                case "ffm" -> FFM;
                case "jni" -> JNI;
                default -> throw new IllegalArgumentException("binding must be ffm or jni, not '"
                        + name + "'");
            };
        }
    }

    private static NativeBinding chosen;
    private static boolean fixed;

    private LinuxIpc() {}

    /**
     * Chooses the binding; for JNI, loads the library now.
     *
     * @param binding the binding
     * @param jniLibrary the JNI library's path (ignored for FFM)
     * @throws UnsatisfiedLinkError when the JNI library cannot be loaded (message names the path)
     * @throws IllegalStateException when the library has already made a call with another binding
     */
    public static synchronized void use(Binding binding, Path jniLibrary) {
        NativeBinding wanted = binding == Binding.JNI ? JniBinding.load(jniLibrary) : FfmBinding.INSTANCE;
        if (fixed && chosen != wanted) {
            throw new IllegalStateException("the binding is already " + chosen.name());
        }
        chosen = wanted;
    }

    /**
     * The binding in use (fixing it if no call has been made yet).
     *
     * @return it
     */
    public static Binding binding() {
        return Binding.of(Native.BINDING.name());
    }

    /** Called once, by {@link Native}'s initialisation: the choice, which is final from now on. */
    static synchronized NativeBinding fix() {
        if (chosen == null) {
            String name = System.getProperty(BINDING_PROPERTY, "ffm");
            if (Binding.of(name) == Binding.JNI) {
                String path = System.getProperty(JNI_LIBRARY_PROPERTY);
                if (path == null) {
                    throw new IllegalStateException(BINDING_PROPERTY + "=jni needs "
                            + JNI_LIBRARY_PROPERTY);
                }
                chosen = JniBinding.load(Path.of(path));
            } else {
                chosen = FfmBinding.INSTANCE;
            }
        }
        fixed = true;
        return chosen;
    }

    /**
     * Whether a JNI library file is at the path (a cheap check before {@link #use}).
     *
     * @param jniLibrary the path
     * @return true if a regular file is there
     */
    public static boolean present(Path jniLibrary) {
        return Files.isRegularFile(jniLibrary);
    }
}
