package dev.ipclab.peer;

import dev.ipclab.peer.frame.ErrorKind;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.objects.ObjectDrive;
import dev.ipclab.peer.pattern.Report;
import dev.ipclab.peer.pattern.Samples;
import dev.ipclab.peer.transport.ReceiveTimeoutException;
import dev.ipclab.peer.transport.WrongAnswerException;
import java.io.IOException;
import java.io.PrintStream;

/**
 * {@code drive}: checks that the mechanism and pattern can do what is asked, connects, lets the
 * pattern drive the session, then always writes the samples that passed validation so far, the
 * warm-up samples (with --warmup-samples-file) and the result file, success or not
 * (PROTOCOL.md sections 5 and 7).
 */
final class Client {
    private final DriveOptions options;
    private final PrintStream diagnostics;

    Client(DriveOptions options, PrintStream diagnostics) {
        this.options = options;
        this.diagnostics = diagnostics;
    }

    /** @return the exit code */
    int run() {
        Samples measured = new Samples();
        Samples warm = options.warmupSamplesFile() == null ? Samples.discarding() : new Samples();
        Report[] report = new Report[1];
        PeerException failure = attempt(warm, measured, report);
        long written = 0;
        long warmWritten = 0;
        try {
            measured.writeTo(options.samplesFile());
            written = measured.count();
            if (options.warmupSamplesFile() != null) {
                warm.writeTo(options.warmupSamplesFile());
                warmWritten = warm.count();
            }
        } catch (IOException e) {
            failure = firstOf(failure, PeerException.io("cannot write a samples file: "
                    + PeerException.describe(e), e));
        }
        try {
            Result.of(options, failure, written, warmWritten, report[0]).writeTo(options.resultFile());
        } catch (IOException e) {
            failure = firstOf(failure, PeerException.io("cannot write the result file: "
                    + PeerException.describe(e), e));
        }
        if (failure == null) {
            return 0;
        }
        diagnostics.println(failure.line());
        return failure.kind().exitCode();
    }

    /**
     * @param report where a stream's or a load's figures go
     * @return null on success, else the failure as a contract error (a load's may come with
     *     its report: found after the run)
     */
    private PeerException attempt(Samples warm, Samples measured, Report[] report) {
        try {
            // First: the binding is fixed at the library's first call, which the checks below
            // may make (uds-dgram's limit is measured on a socket); the one binding refused
            // outright is refused before it loads anything.
            JavaBinding.check(options.study().javaBinding(), options.mechanism());
            JavaBinding.apply(options.study().javaBinding());
            Mechanism mechanism = supportedMechanism();
            Pattern pattern = supportedPattern(mechanism);
            if (keepsWarmup()) {
                warm.reserve(options.warmup());
            }
            measured.reserve(options.samples());
            if (options.objects()) {
                ObjectDrive.drive(options.objectOptions(), warm, measured);
                return null;
            }
            report[0] = pattern.drive(mechanism, options, warm, measured);
            return report[0] == null ? null : report[0].failure();
        } catch (PeerException e) {
            return e;
        } catch (ReceiveTimeoutException e) {
            return PeerException.timeout(e.getMessage(), e);
        } catch (WrongAnswerException e) {
            return PeerException.protocol(e.getMessage(), e);
        } catch (IOException e) {
            return PeerException.io("exchange with " + options.endpoint() + " failed: "
                    + PeerException.describe(e), e);
        } catch (OutOfMemoryError e) {
            return new PeerException(ErrorKind.INTERNAL, "out of memory (raise -Xmx or "
                    + "-XX:MaxDirectMemorySize): " + e.getMessage(), e);
        } catch (RuntimeException e) {
            return new PeerException(ErrorKind.INTERNAL, e.toString(), e);
        }
    }

    /** Everything this peer cannot do is known before connecting (section 1: unsupported). */
    private Mechanism supportedMechanism() throws PeerException {
        Mechanism mechanism = Mechanism.byName(options.mechanism()).orElseThrow(() ->
                PeerException.unsupported("unknown mechanism " + options.mechanism()));
        if (mechanism.unavailable() != null) {
            throw PeerException.unsupported(mechanism.label() + ": " + mechanism.unavailable());
        }
        if (options.structured() && !mechanism.carriesRecords()) {
            throw PeerException.unsupported("structured payloads (--payload " + options.payload()
                    + ") need an RPC mechanism, not " + mechanism.label());
        }
        checkStudy(mechanism, options.study());
        if (options.objects() && (!ObjectDrive.carries(options.mechanism())
                || !options.pattern().equals(Pattern.RR.label()))) {
            throw PeerException.unsupported("--payload object runs pattern rr over tcp, fifo, "
                    + "sysv-mq and sysv-shm only, not " + options.pattern() + " over " + mechanism.label());
        }
        int largest = Math.max(options.requestSize(), options.responseSize());
        if (largest > mechanism.maxPayload()) {
            throw PeerException.unsupported(mechanism.label() + " carries at most "
                    + mechanism.maxPayload() + " payload bytes per frame here, asked for " + largest);
        }
        if (options.stream() != null && options.stream().messageSize() > mechanism.maxMessage()) {
            throw PeerException.unsupported(mechanism.label() + " carries at most "
                    + mechanism.maxMessage() + " bytes per stream message here, asked for "
                    + options.stream().messageSize());
        }
        long kept = Math.max(options.samples(), keepsWarmup() ? options.warmup() : 0);
        if (kept > Samples.MAX) {
            throw PeerException.unsupported("this peer records at most " + Samples.MAX + " samples");
        }
        return mechanism;
    }

    /** The study flags (section 1) this mechanism has; anything else is unsupported. */
    private static void checkStudy(Mechanism mechanism, Study study) throws PeerException {
        String name = mechanism.label();
        if (study.voidCalls() && !mechanism.carriesRecords()) {
            throw PeerException.unsupported("--void calls an RPC operation: " + name
                    + " is not an RPC mechanism");
        }
        checkNoDelay(mechanism, study.nodelay());
        Delivery.check(mechanism, study.delivery());
        if (study.restJson() && mechanism != Mechanism.REST) {
            throw PeerException.unsupported("--rest-body json is for rest only, not " + name);
        }
        if (study.corbaString() && mechanism != Mechanism.CORBA) {
            throw PeerException.unsupported("--corba-payload string is for corba only, not " + name);
        }
        if (study.oneWay() && !mechanism.carriesOneWay()) {
            throw PeerException.unsupported("--one-way needs short over frames (tcp, uds, sysv-mq, "
                    + "posix-mq), not " + name);
        }
        if (study.oneSource() && mechanism != Mechanism.TCP) {
            throw PeerException.unsupported("--source one is for short over tcp only, not " + name);
        }
        if (study.mockNewArray() && mechanism != Mechanism.NONE) {
            throw PeerException.unsupported("--mock new-array is for mechanism none only, not "
                    + name);
        }
        if (study.jniArraysCopy() && mechanism != Mechanism.JNI) {
            throw PeerException.unsupported("--jni-arrays copy is for mechanism jni only, not "
                    + name);
        }
    }

    /** --nodelay off only where the mechanism's sockets can keep Nagle's algorithm on. */
    static void checkNoDelay(Mechanism mechanism, boolean nodelay) throws PeerException {
        if (!nodelay && !mechanism.choosesNoDelay()) {
            throw PeerException.unsupported("--nodelay off is for tcp, rest and grpc only, not "
                    + mechanism.label());
        }
    }

    /** A stream's warm-up messages are not timed one by one: its warm-up samples file stays empty. */
    private boolean keepsWarmup() {
        return options.warmupSamplesFile() != null && options.stream() == null;
    }

    private Pattern supportedPattern(Mechanism mechanism) throws PeerException {
        Pattern pattern = Pattern.byName(options.pattern()).orElseThrow(() ->
                PeerException.unsupported("unknown pattern " + options.pattern()));
        if (!mechanism.patterns().contains(pattern)) {
            throw PeerException.unsupported(mechanism.label() + " has no pattern " + pattern.label());
        }
        return pattern;
    }

    private static PeerException firstOf(PeerException earlier, PeerException later) {
        return earlier != null ? earlier : later;
    }
}
