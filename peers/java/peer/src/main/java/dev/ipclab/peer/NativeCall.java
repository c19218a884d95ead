package dev.ipclab.peer;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.inprocess.InProcess;
import java.nio.file.Path;
import java.util.Map;

/**
 * jni (PROTOCOL.md section 4.4): the native method implemented in {@code libipclab_native.so}
 * (symbol {@code Java_dev_ipclab_peer_NativeCall_call}, which fixes this class's package and
 * name), loaded with {@link System#load}, and the in-process call that uses it.
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

    /** jni's {@link InProcess.Call}: loads --native-library, then calls {@link #call}. */
    static InProcess.Call jni(String nativeLibrary, long seed, int requestSize, int responseSize)
            throws PeerException {
        Path path = InProcess.library(nativeLibrary);
        try {
            System.load(path.toString());
        } catch (UnsatisfiedLinkError e) {
            throw new PeerException(ErrorKind.IO, "cannot load " + path + ": " + e.getMessage(), e);
        }
        return new InProcess.Call() {
            @Override
            public byte[] call(byte[] request, int responseSize, long seed, long sequence) {
                return NativeCall.call(request, responseSize, seed, sequence);
            }
        };
    }
}
