package dev.ipclab.peer;

import dev.ipclab.peer.burst.BurstOptions;
import dev.ipclab.peer.frame.Frame;
import dev.ipclab.peer.load.LoadShape;
import dev.ipclab.peer.objects.ObjectDrive;
import dev.ipclab.peer.pattern.StreamShape;
import dev.ipclab.peer.rpc.RpcDrive;
import java.nio.file.Path;

/**
 * {@code drive}: mechanism and pattern stay strings, because an unknown one is an unsupported
 * error (exit 7) that the client still records in its result file.
 */
record DriveOptions(
        String mechanism,
        String endpoint,
        String pattern,
        int requestSize,
        int responseSize,
        long warmup,
        long iterations,
        Path samplesFile,
        Path resultFile,
        long seed,
        long ioTimeoutNanos,
        long pollIntervalNanos,
        long spinNanos,
        String nativeLibrary,
        String payload,
        int sequenceLength,
        String httpClient,
        Path warmupSamplesFile,
        StreamShape stream,
        Study study,
        LoadShape load) implements Command {
    static final String BYTES = "bytes";
    /** --payload object: Java's serialized objects (PROTOCOL.md 4.6). */
    static final String OBJECT = "object";
    /** --payload long: Wells' minimal data, the object round trip of a Long alone (4.6). */
    static final String LONG = "long";
    static final long DEFAULT_WINDOWS = 10;
    static final int DEFAULT_SEQUENCE_LENGTH = 5;
    static final String OKHTTP = "okhttp";

    /** Not a load client. */
    DriveOptions(String mechanism, String endpoint, String pattern, int requestSize,
            int responseSize, long warmup, long iterations, Path samplesFile, Path resultFile,
            long seed, long ioTimeoutNanos, long pollIntervalNanos, long spinNanos,
            String nativeLibrary, String payload, int sequenceLength, String httpClient,
            Path warmupSamplesFile, StreamShape stream, Study study) {
        this(mechanism, endpoint, pattern, requestSize, responseSize, warmup, iterations,
                samplesFile, resultFile, seed, ioTimeoutNanos, pollIntervalNanos, spinNanos,
                nativeLibrary, payload, sequenceLength, httpClient, warmupSamplesFile, stream,
                study, null);
    }

    /** With the study flags' defaults. */
    DriveOptions(String mechanism, String endpoint, String pattern, int requestSize,
            int responseSize, long warmup, long iterations, Path samplesFile, Path resultFile,
            long seed, long ioTimeoutNanos, long pollIntervalNanos, long spinNanos,
            String nativeLibrary, String payload, int sequenceLength, String httpClient,
            Path warmupSamplesFile, StreamShape stream) {
        this(mechanism, endpoint, pattern, requestSize, responseSize, warmup, iterations,
                samplesFile, resultFile, seed, ioTimeoutNanos, pollIntervalNanos, spinNanos,
                nativeLibrary, payload, sequenceLength, httpClient, warmupSamplesFile, stream,
                Study.DEFAULT);
    }

    /** A bytes payload, the default sequence length and HTTP client. */
    DriveOptions(String mechanism, String endpoint, String pattern, int requestSize,
            int responseSize, long warmup, long iterations, Path samplesFile, Path resultFile,
            long seed, long ioTimeoutNanos, long pollIntervalNanos, long spinNanos,
            String nativeLibrary) {
        this(mechanism, endpoint, pattern, requestSize, responseSize, warmup, iterations,
                samplesFile, resultFile, seed, ioTimeoutNanos, pollIntervalNanos, spinNanos,
                nativeLibrary, BYTES, DEFAULT_SEQUENCE_LENGTH, OKHTTP, null, null, Study.DEFAULT);
    }

    /** What a link may read. */
    Mechanism.Settings settings() {
        long largestAnswer = Frame.HEADER_SIZE + (stream != null ? Frame.STREAM_END_ACK_PAYLOAD
                : Math.max(responseSize, Frame.END_ACK_PAYLOAD));
        return new Mechanism.Settings(ioTimeoutNanos, pollIntervalNanos, spinNanos, study.nodelay(),
                Delivery.persistent(study.delivery()), BurstOptions.DEFAULT_BACKLOG,
                study.oneSource(), largestAnswer, stream != null ? stream.messageSize() : 0);
    }

    /** What an RPC client needs (section 10). */
    RpcDrive.Options rpc() {
        return new RpcDrive.Options(mechanism, endpoint, seed, requestSize, responseSize, payload,
                sequenceLength, ioTimeoutNanos, httpClient, study.voidCalls(), study.nodelay(),
                study.restJson(), study.corbaString(), study.nonNegative(), study.recordsPerCall());
    }

    /** A stream client (section 11.1): S bytes per message, N messages, W windows. */
    static DriveOptions streaming(String mechanism, String endpoint, StreamShape stream, long warmup,
            Path samplesFile, Path resultFile, long seed, long ioTimeoutNanos) {
        return new DriveOptions(mechanism, endpoint, Pattern.STREAM.label(), 0, 0, warmup, 0,
                samplesFile, resultFile, seed, ioTimeoutNanos, Mechanism.DEFAULT_POLL_INTERVAL_NANOS,
                Mechanism.DEFAULT_SPIN_NANOS, null, BYTES, DEFAULT_SEQUENCE_LENGTH, OKHTTP, null,
                stream, Study.DEFAULT);
    }

    /** The samples a run keeps: one per window (stream) or per round trip. */
    long samples() {
        return stream != null ? stream.windows() : iterations;
    }

    /** One of the structured payloads of section 10.2 (not bytes, not object). */
    boolean structured() {
        return !payload.equals(BYTES) && !objects();
    }

    /** --payload object or long (4.6): Java's object streams. */
    boolean objects() {
        return payload.equals(OBJECT) || longs();
    }

    /** --payload long (4.6): a Long alone each way. */
    boolean longs() {
        return payload.equals(LONG);
    }

    /** What an object client needs (4.6): one size, both ways. */
    ObjectDrive.Options objectOptions() {
        return new ObjectDrive.Options(mechanism, endpoint, seed, requestSize, warmup, iterations,
                ioTimeoutNanos, study.nodelay(), longs());
    }

    /** With the default --spin-us and no --native-library. */
    DriveOptions(String mechanism, String endpoint, String pattern, int requestSize,
            int responseSize, long warmup, long iterations, Path samplesFile, Path resultFile,
            long seed, long ioTimeoutNanos, long pollIntervalNanos) {
        this(mechanism, endpoint, pattern, requestSize, responseSize, warmup, iterations,
                samplesFile, resultFile, seed, ioTimeoutNanos, pollIntervalNanos,
                Mechanism.DEFAULT_SPIN_NANOS, null);
    }

    /** With the default --poll-interval-us. */
    DriveOptions(String mechanism, String endpoint, String pattern, int requestSize,
            int responseSize, long warmup, long iterations, Path samplesFile, Path resultFile,
            long seed, long ioTimeoutNanos) {
        this(mechanism, endpoint, pattern, requestSize, responseSize, warmup, iterations,
                samplesFile, resultFile, seed, ioTimeoutNanos, Mechanism.DEFAULT_POLL_INTERVAL_NANOS);
    }
}
