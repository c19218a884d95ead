package dev.ipclab.peer;

/**
 * jni (PROTOCOL.md section 4.4): the native method implemented in {@code libipclab_native.so}
 * (symbol {@code Java_dev_ipclab_peer_NativeCall_call}), loaded with {@link System#load}.
 */
final class NativeCall {
    private NativeCall() {}

    /**
     * Checks the request's stamp and returns a new array holding payload(seed, 2, seq, respLen).
     *
     * @return the response, or null when the request's stamp is wrong
     */
    static native byte[] call(byte[] req, int respLen, long seed, long seq);
}
