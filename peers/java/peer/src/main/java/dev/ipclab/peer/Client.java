package dev.ipclab.peer;

import java.io.IOException;
import java.io.PrintStream;
import dev.ipclab.peer.rpc.Framework;
import dev.ipclab.peer.rpc.RpcDrive;
import dev.ipclab.peer.rpc.RpcException;

/**
 * {@code drive}: runs the exchange, then always writes the samples measured so far and the
 * result file, success or not (PROTOCOL.md section 5).
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
        Samples samples = new Samples();
        PeerException failure = attempt(samples);
        long written = 0;
        try {
            samples.writeTo(options.samplesFile());
            written = samples.count();
        } catch (IOException e) {
            failure = firstOf(failure, new PeerException(ErrorKind.IO,
                    "cannot write the samples file: " + PeerException.describe(e), e));
        }
        try {
            Result.of(options, failure, written).writeTo(options.resultFile());
        } catch (IOException e) {
            failure = firstOf(failure, new PeerException(ErrorKind.IO,
                    "cannot write the result file: " + PeerException.describe(e), e));
        }
        if (failure == null) {
            return 0;
        }
        diagnostics.println(failure.line());
        return failure.kind().exitCode();
    }

    /** @return null on success, else the failure as a contract error */
    private PeerException attempt(Samples samples) {
        try {
            if (Framework.byName(options.mechanism()) != null) {
                return rpc(samples);
            }
            Mechanism mechanism = supportedMechanism();
            samples.reserve(options.iterations());
            if (mechanism.isInProcess()) {
                InProcess.open(mechanism, options.nativeLibrary(), options.seed(),
                        options.requestSize(), options.responseSize())
                        .run(options.warmup(), options.iterations(), samples);
                return null;
            }
            try (ClientLink link = connect(mechanism)) {
                new Exchange(link, options.seed(), options.requestSize(), options.responseSize())
                        .run(options.warmup(), options.iterations(), samples);
            }
            return null;
        } catch (PeerException e) {
            return e;
        } catch (ReceiveTimeoutException e) {
            return new PeerException(ErrorKind.TIMEOUT, e.getMessage(), e);
        } catch (IOException e) {
            return new PeerException(ErrorKind.IO, "exchange with " + options.endpoint() + " failed: "
                    + PeerException.describe(e), e);
        } catch (OutOfMemoryError e) {
            return new PeerException(ErrorKind.INTERNAL, "out of memory (raise -Xmx or "
                    + "-XX:MaxDirectMemorySize): " + e.getMessage(), e);
        } catch (RuntimeException e) {
            return new PeerException(ErrorKind.INTERNAL, e.toString(), e);
        }
    }

    /** Section 10: the framework's own protocol, no frames. */
    private PeerException rpc(Samples samples) throws PeerException {
        if (!options.pattern().equals("rr")) {
            throw unsupported("unknown pattern " + options.pattern() + " (version 1 has only rr)");
        }
        if (options.iterations() > Samples.MAX) {
            throw unsupported("this peer records at most " + Samples.MAX + " samples");
        }
        samples.reserve(options.iterations());
        try {
            RpcDrive.run(new RpcDrive.Options(options.mechanism(), options.endpoint(),
                    options.seed(), options.requestSize(), options.responseSize(),
                    options.payload(), options.sequenceLength(), options.ioTimeoutNanos(),
                    options.httpClient()), options.warmup(), options.iterations(), samples::add);
            return null;
        } catch (RpcException e) {
            return new PeerException(ErrorKind.byLabel(e.kind()), e.getMessage(), e);
        }
    }

    /** Everything this peer cannot do is known before connecting (section 1: unsupported). */
    private Mechanism supportedMechanism() throws PeerException {
        Mechanism mechanism = Mechanism.byName(options.mechanism()).orElseThrow(() ->
                unsupported("unknown mechanism " + options.mechanism()));
        if (options.structured()) {
            throw unsupported("structured payloads (--payload " + options.payload()
                    + ") need an RPC mechanism, not " + mechanism.label());
        }
        if (!options.pattern().equals("rr")) {
            throw unsupported("unknown pattern " + options.pattern() + " (version 1 has only rr)");
        }
        int largest = Math.max(options.requestSize(), options.responseSize());
        if (largest > mechanism.maxPayload()) {
            throw unsupported(mechanism.label() + " carries at most " + mechanism.maxPayload()
                    + " payload bytes per frame, asked for " + largest);
        }
        if (options.iterations() > Samples.MAX) {
            throw unsupported("this peer records at most " + Samples.MAX + " samples");
        }
        return mechanism;
    }

    private ClientLink connect(Mechanism mechanism) throws PeerException {
        try {
            return mechanism.connect(options.endpoint(), options.ioTimeoutNanos(),
                    options.pollIntervalNanos(), options.spinNanos());
        } catch (IOException e) {
            throw new PeerException(ErrorKind.IO,
                    "cannot connect to " + options.endpoint() + ": " + PeerException.describe(e), e);
        }
    }

    private static PeerException unsupported(String message) {
        return new PeerException(ErrorKind.UNSUPPORTED, message);
    }

    private static PeerException firstOf(PeerException earlier, PeerException later) {
        return earlier != null ? earlier : later;
    }
}
