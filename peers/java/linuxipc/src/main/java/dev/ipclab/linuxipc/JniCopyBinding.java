package dev.ipclab.linuxipc;

import java.nio.file.Path;

/**
 * {@code jni-copy}: the JNI binding whose message queue calls on a Java {@code byte[]} copy it in
 * C per call, as the JNI library lajp did (the blog of seed 001 used it for its System V queue
 * benchmark): to send, GetByteArrayElements (a copy of the whole array), malloc of a message,
 * memcpy, msgsnd or mq_send, free, ReleaseByteArrayElements(JNI_ABORT); to receive, malloc,
 * msgrcv or mq_timedreceive, SetByteArrayRegion, free. Everything else, segments included, is
 * {@link JniBinding}'s. Callers pass an array of the message's length: the elements are copied
 * whole, whatever the length given.
 */
final class JniCopyBinding extends JniBinding {
    private static JniCopyBinding instance;

    private JniCopyBinding() {}

    /**
     * Loads the library (once, shared with {@link JniBinding}) and returns the binding.
     *
     * @throws UnsatisfiedLinkError also when the library predates the copying entry points
     */
    static synchronized JniCopyBinding load(Path library) {
        loadLibrary(library);
        if (instance == null) {
            probe(library);
            instance = new JniCopyBinding();
        }
        return instance;
    }

    /**
     * JNI links a native method at its first call: one harmless call now (msgrcv on no queue,
     * EINVAL) turns a library built before jni-copy into a failure here, naming the library,
     * instead of in the middle of a run.
     */
    private static void probe(Path library) {
        try {
            msgrcvCopy(-1, new byte[1], 1, 1, IPC_NOWAIT);
        } catch (UnsatisfiedLinkError e) {
            UnsatisfiedLinkError missing = new UnsatisfiedLinkError(library.toAbsolutePath()
                    + " has no jni-copy entry points (rebuild peers/native): " + e.getMessage());
            missing.initCause(e);
            throw missing;
        }
    }

    private static final int IPC_NOWAIT = 04000;

    @Override
    public String name() {
        return "jni-copy";
    }

    @Override
    public int msgsnd(int id, long type, byte[] text, int length, int flags) {
        return msgsndCopy(id, type, text, length, flags);
    }

    @Override
    public long msgrcv(int id, byte[] text, int capacity, long type, int flags) {
        return msgrcvCopy(id, text, capacity, type, flags);
    }

    @Override
    public int mqSend(int mqd, byte[] data, int length, int priority) {
        return mqSendCopy(mqd, data, length, priority);
    }

    @Override
    public long mqReceive(int mqd, byte[] data, int capacity, long timeoutNanos) {
        return mqTimedReceiveCopy(mqd, data, capacity, timeoutNanos);
    }
}
