package dev.ipclab.linuxipc;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Chooses how the library reaches the C library, once per process: through the FFM API (the
 * default), through JNI ({@code libipclab_linuxipc_jni.so}) with native buffers passed by
 * address, or through the same JNI library copying the caller's {@code byte[]} per call
 * ({@code jni-copy}). The Java API is the same every way. Choose before the library's first
 * native call; the choice is then fixed, so a call never looks its binding up. Without a call to
 * {@link #use}, the system properties {@value #BINDING_PROPERTY} ({@code ffm}, {@code jni} or
 * {@code jni-copy}) and {@value #JNI_LIBRARY_PROPERTY} (the library's path) decide.
 */
public final class LinuxIpc {
    /** System property naming the binding when {@link #use} was not called. */
    public static final String BINDING_PROPERTY = "dev.ipclab.linuxipc.binding";
    /** System property giving the JNI library's path when {@link #use} was not called. */
    public static final String JNI_LIBRARY_PROPERTY = "dev.ipclab.linuxipc.jni.library";
    /** The JNI library's file name. */
    public static final String JNI_LIBRARY_NAME = "libipclab_linuxipc_jni.so";

    /** The three bindings. */
    public enum Binding {
        /** java.lang.foreign downcalls. */
        FFM("ffm"),
        /** JNI native methods of {@value #JNI_LIBRARY_NAME}, native buffers passed by address. */
        JNI("jni"),
        /**
         * As {@link #JNI}, but the message calls that take a {@code byte[]} (message queues'
         * send and receive) copy it per call in C, as the JNI library lajp did: the elements
         * with GetByteArrayElements, a malloc'ed message, memcpy, free (SetByteArrayRegion to
         * receive).
         */
        JNI_COPY("jni-copy");

        private final String label;

        Binding(String label) {
            this.label = label;
        }

        /**
         * The binding's name.
         *
         * @return {@code ffm}, {@code jni} or {@code jni-copy}
         */
        public String label() {
            return label;
        }

        /** Whether the binding is one of the JNI library's (it needs the library loaded). */
        boolean jni() {
            return this != FFM;
        }

        /**
         * The binding of a name.
         *
         * @param name {@code ffm}, {@code jni} or {@code jni-copy}
         * @return the binding
         * @throws IllegalArgumentException for any other name
         */
        public static Binding of(String name) {
            for (Binding binding : values()) {
                if (binding.label.equals(name)) {
                    return binding;
                }
            }
            throw new IllegalArgumentException("binding must be ffm, jni or jni-copy, not '"
                    + name + "'");
        }
    }

    private static NativeBinding chosen;
    private static boolean fixed;

    private LinuxIpc() {}

    /**
     * Chooses the binding; for JNI and JNI_COPY, loads the library now.
     *
     * @param binding the binding
     * @param jniLibrary the JNI library's path (ignored for FFM)
     * @throws UnsatisfiedLinkError when the JNI library cannot be loaded (message names the path)
     * @throws IllegalStateException when the library has already made a call with another binding
     */
    public static synchronized void use(Binding binding, Path jniLibrary) {
        NativeBinding wanted = of(binding, jniLibrary);
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

    /** The binding's instance; a JNI one loads the library (once). */
    private static NativeBinding of(Binding binding, Path jniLibrary) {
        return switch (binding) {
            case FFM -> FfmBinding.INSTANCE;
            case JNI -> JniBinding.load(jniLibrary);
            case JNI_COPY -> JniCopyBinding.load(jniLibrary);
        };
    }

    /** Called once, by {@link Native}'s initialisation: the choice, which is final from now on. */
    static synchronized NativeBinding fix() {
        if (chosen == null) {
            Binding binding = Binding.of(System.getProperty(BINDING_PROPERTY, "ffm"));
            String path = System.getProperty(JNI_LIBRARY_PROPERTY);
            if (binding.jni() && path == null) {
                throw new IllegalStateException(BINDING_PROPERTY + "=" + binding.label()
                        + " needs " + JNI_LIBRARY_PROPERTY);
            }
            chosen = of(binding, binding.jni() ? Path.of(path) : null);
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
