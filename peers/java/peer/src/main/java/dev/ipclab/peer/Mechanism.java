package dev.ipclab.peer;

import java.io.IOException;
import java.util.Optional;

/** The mechanisms of PROTOCOL.md section 4, with their endpoint syntax and size limit. */
enum Mechanism {
    TCP("tcp", Frame.MAX_PAYLOAD),
    UDP("udp", Udp.MAX_PAYLOAD),
    UDS("uds", Frame.MAX_PAYLOAD),
    PIPE("pipe", Frame.MAX_PAYLOAD),
    FIFO("fifo", Frame.MAX_PAYLOAD),
    SYSV_MQ("sysv-mq", Frame.MAX_PAYLOAD),
    POSIX_MQ("posix-mq", Frame.MAX_PAYLOAD),
    SYSV_SHM("sysv-shm", Frame.MAX_PAYLOAD),
    FILE("file", Frame.MAX_PAYLOAD),
    FILE_POLL("file-poll", Frame.MAX_PAYLOAD),
    SHM("shm", Frame.MAX_PAYLOAD),
    SHM_SPIN("shm-spin", Frame.MAX_PAYLOAD),
    SHM_FUTEX("shm-futex", Frame.MAX_PAYLOAD),
    /** In-process (section 4.4): drive only, endpoint {@code inproc}. */
    NONE("none", Frame.MAX_PAYLOAD),
    JNI("jni", Frame.MAX_PAYLOAD),
    FFM("ffm", Frame.MAX_PAYLOAD);

    static final String INPROC = "inproc";
    /** The default --spin-us (50 us), in nanoseconds. */
    static final long DEFAULT_SPIN_NANOS = 50_000L;

    private final String label;
    private final int maxPayload;

    Mechanism(String label, int maxPayload) {
        this.label = label;
        this.maxPayload = maxPayload;
    }

    static Optional<Mechanism> byName(String name) {
        for (Mechanism m : values()) {
            if (m.label.equals(name)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    String label() {
        return label;
    }

    int maxPayload() {
        return maxPayload;
    }

    boolean isStream() {
        return this != UDP;
    }

    /** none, jni, ffm: a function call, no server. */
    boolean isInProcess() {
        return this == NONE || this == JNI || this == FFM;
    }

    /** jni, ffm: need --native-library. */
    boolean needsNativeLibrary() {
        return this == JNI || this == FFM;
    }

    /** @throws IllegalArgumentException if the endpoint is not of this mechanism's form */
    void checkEndpoint(String endpoint) {
        switch (this) {
            case TCP, UDP -> Endpoints.hostPort(endpoint);
            case PIPE -> Endpoints.fdPair(endpoint);
            case UDS, FIFO, FILE, FILE_POLL -> Endpoints.path(endpoint);
            case SYSV_MQ, SYSV_SHM -> {
                if (!endpoint.equals("auto")) {
                    SysVKeys.parse(endpoint);
                }
            }
            case POSIX_MQ, SHM, SHM_SPIN, SHM_FUTEX -> PosixMq.checkEndpoint(endpoint);
            case NONE, JNI, FFM -> {
                if (!endpoint.equals(INPROC)) {
                    throw new IllegalArgumentException("endpoint of " + label + " must be inproc, got '"
                            + endpoint + "'");
                }
            }
        }
    }

    /** Listens as a stream server; udp servers are made by {@link Udp#bind} instead. */
    StreamListener listen(String endpoint) throws IOException {
        return listen(endpoint, DEFAULT_POLL_INTERVAL_NANOS);
    }

    /** The default --poll-interval-us (2000 us), in nanoseconds. */
    static final long DEFAULT_POLL_INTERVAL_NANOS = 2_000_000L;

    /** @param pollIntervalNanos file-poll's --poll-interval-us, in nanoseconds */
    StreamListener listen(String endpoint, long pollIntervalNanos) throws IOException {
        return listen(endpoint, pollIntervalNanos, DEFAULT_SPIN_NANOS);
    }

    /** @param spinNanos shm's --spin-us, in nanoseconds */
    StreamListener listen(String endpoint, long pollIntervalNanos, long spinNanos)
            throws IOException {
        return switch (this) {
            case TCP -> Tcp.listen(endpoint);
            case UDS -> Uds.listen(endpoint);
            case PIPE -> Pipe.listen(endpoint);
            case FIFO -> Fifo.listen(endpoint);
            case SYSV_MQ -> SysVMq.listen(endpoint);
            case POSIX_MQ -> PosixMq.listen(endpoint);
            case SYSV_SHM -> SysVShm.listen(endpoint);
            case FILE, FILE_POLL -> FileFrames.listen(this, endpoint, pollIntervalNanos);
            case SHM, SHM_SPIN, SHM_FUTEX -> Shm.listen(this, endpoint, spinNanos);
            case UDP -> throw new IllegalStateException("udp is not a stream mechanism");
            case NONE, JNI, FFM -> throw new IllegalStateException(label + " has no server");
        };
    }

    ClientLink connect(String endpoint, long ioTimeoutNanos) throws IOException {
        return connect(endpoint, ioTimeoutNanos, DEFAULT_POLL_INTERVAL_NANOS);
    }

    ClientLink connect(String endpoint, long ioTimeoutNanos, long pollIntervalNanos)
            throws IOException {
        return connect(endpoint, ioTimeoutNanos, pollIntervalNanos, DEFAULT_SPIN_NANOS);
    }

    ClientLink connect(String endpoint, long ioTimeoutNanos, long pollIntervalNanos,
            long spinNanos) throws IOException {
        return switch (this) {
            case TCP -> Tcp.connect(endpoint);
            case UDP -> Udp.connect(endpoint, ioTimeoutNanos);
            case UDS -> Uds.connect(endpoint);
            case PIPE -> Pipe.connect(endpoint);
            case FIFO -> Fifo.connect(endpoint);
            case SYSV_MQ -> SysVMq.connect(endpoint);
            case POSIX_MQ -> PosixMq.connect(endpoint, ioTimeoutNanos);
            case SYSV_SHM -> SysVShm.connect(endpoint, ioTimeoutNanos);
            case FILE, FILE_POLL -> FileFrames.connect(this, endpoint, ioTimeoutNanos,
                    pollIntervalNanos);
            case SHM, SHM_SPIN, SHM_FUTEX -> Shm.connect(this, endpoint, ioTimeoutNanos, spinNanos);
            case NONE, JNI, FFM -> throw new IllegalStateException(label + " has no link");
        };
    }
}
