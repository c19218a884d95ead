package dev.ipclab.peer;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.inprocess.InProcess;
import java.nio.file.Path;
import java.util.Map;

/**
 * jni (PROTOCOL.md section 4.4): the native methods implemented in {@code libipclab_native.so}
 * (symbols {@code Java_dev_ipclab_peer_NativeCall_call} and {@code ..._callCopy}, which fix this
 * class's package and name), loaded with {@link System#load}, and the in-process calls that use
 * them: {@code --jni-arrays critical} (the default) and {@code copy}.
 */
final class NativeCall {
    private NativeCall() {}

    /** --native-library: required by the in-process mechanisms that call the C library. */
    static String libraryFlag(Map<String, String> flags, String mechanism) {
        String nativeLibrary = flags.get("native-library");
        if (nativeLibrary != null && nativeLibrary.isEmpty()) {
            throw new IllegalArgumentException("--native-library must not be empty");
        }
        if (nativeLibrary == null && Mechanism.byName(mechanism)
                .map(Mechanism::needsNativeLibrary).orElse(false)) {
            throw new IllegalArgumentException("--native-library is required for " + mechanism);
        }
        return nativeLibrary;
    }

    /**
     * Checks the request's stamp and returns a new array holding payload(seed, 2, seq, respLen).
     *
     * @return the response, or null when the request's stamp is wrong
     */
    static native byte[] call(byte[] req, int respLen, long seed, long seq);

    /**
     * {@link #call} marshalled as the thesis's JNI code did (--jni-arrays copy): the request's
     * elements copied in full (GetByteArrayElements), the response's elements taken as a copy,
     * filled and written back with SetByteArrayRegion.
     *
     * @return the response, or null when the request's stamp is wrong
     */
    static native byte[] callCopy(byte[] req, int respLen, long seed, long seq);

    /** jni's {@link InProcess.Call}: loads --native-library, then calls {@link #call}. */
    static InProcess.Call jni(String nativeLibrary, long seed, int requestSize, int responseSize)
            throws PeerException {
        load(nativeLibrary);
        return new InProcess.Call() {
            @Override
            public byte[] call(byte[] request, int responseSize, long seed, long sequence) {
                return NativeCall.call(request, responseSize, seed, sequence);
            }
        };
    }

    /**
     * --jni-arrays copy: loads --native-library, checks that it has {@link #callCopy} (a
     * library built before it fails here, an io error, not in the first round trip), then
     * calls it.
     */
    static InProcess.Call jniCopy(String nativeLibrary, long seed, int requestSize,
            int responseSize) throws PeerException {
        Path path = load(nativeLibrary);
        try {
            callCopy(null, 0, seed, 0);  // null in, null out: only links the symbol
        } catch (UnsatisfiedLinkError e) {
            throw new PeerException(ErrorKind.IO, path + " has no callCopy for --jni-arrays copy "
                    + "(rebuild peers/native): " + e.getMessage(), e);
        }
        return new InProcess.Call() {
            @Override
            public byte[] call(byte[] request, int responseSize, long seed, long sequence) {
                return NativeCall.callCopy(request, responseSize, seed, sequence);
            }
        };
    }

    /** System.load of --native-library; an io error when it cannot be loaded. */
    private static Path load(String nativeLibrary) throws PeerException {
        Path path = InProcess.library(nativeLibrary);
        try {
            System.load(path.toString());
        } catch (UnsatisfiedLinkError e) {
            throw new PeerException(ErrorKind.IO, "cannot load " + path + ": " + e.getMessage(), e);
        }
        return path;
    }
}
