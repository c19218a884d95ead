package dev.ipclab.peer;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.ipclab.linuxipc.ResourceUsage;
import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.load.LoadReport;
import dev.ipclab.peer.load.LoadShape;
import dev.ipclab.peer.pattern.Report;
import dev.ipclab.peer.pattern.StreamDrive;
import dev.ipclab.peer.pattern.StreamShape;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

/** The client's result file (PROTOCOL.md section 7); field names become snake_case. */
record Result(
        String schema,
        String status,
        String errorKind,
        String error,
        String language,
        String runtime,
        String mechanism,
        String pattern,
        long requestSize,
        long responseSize,
        long warmup,
        long iterations,
        String payload,
        Integer sequenceLength,
        long samples,
        String clock,
        long pid,
        int contract,
        long warmupSamples,
        @JsonUnwrapped Stream stream,
        @JsonUnwrapped Load load) {

    static final String SCHEMA = "ipclab.peer-result/1";

    /**
     * What a stream adds (section 11.1 step 8); absent for other patterns. The figures are null
     * when the stream did not complete.
     */
    record Stream(long messages, long messageSize, long windows, Long streamNs, Long lost,
            Cpu clientCpu, Cpu serverCpu) {}

    /**
     * What a load adds (section 11.5.3); absent for other patterns. The counts are null when the
     * schedule could not be made (the client holds too few requests).
     */
    record Load(int clients, long rate, String arrival, long durationMs, long warmupMs,
            Long requestsOk, Long requestsFailed, Map<String, Long> errors, Double achievedPerS,
            Long latenessP99Ns) {}

    /** One side's CPU time and context switches over the measured stream. */
    record Cpu(long userNs, long sysNs, long voluntary, long involuntary) {
        static Cpu of(ResourceUsage usage) {
            return new Cpu(usage.userNanos(), usage.systemNanos(), usage.voluntary(),
                    usage.involuntary());
        }
    }

    /**
     * @param failure null for success
     * @param report a completed stream's figures, a load's, else null
     */
    static Result of(DriveOptions options, PeerException failure, long samples,
            long warmupSamples, Report report) {
        LoadReport load = report instanceof LoadReport l ? l : null;
        return new Result(SCHEMA,
                failure == null ? "ok" : "error",
                failure == null ? null : failure.kind().label(),
                failure == null ? null : failure.getMessage(),
                PeerInfo.LANGUAGE, PeerInfo.RUNTIME,
                options.mechanism(), options.pattern(),
                options.requestSize(), options.responseSize(),
                load != null ? load.warmup() : options.warmup(),
                load != null ? load.measured() : options.iterations(),
                options.payload(), options.structured() ? options.sequenceLength() : null,
                samples, PeerInfo.CLOCK, PeerInfo.pid(), PeerInfo.CONTRACT, warmupSamples,
                stream(options, report instanceof StreamDrive.Report s ? s : null),
                load(options.load(), load));
    }

    private static Load load(LoadShape shape, LoadReport report) {
        if (shape == null) {
            return null;
        }
        return report == null
                ? new Load(shape.clients(), shape.rate(), shape.arrival(), shape.durationMs(),
                        shape.warmupMs(), null, null, null, null, null)
                : new Load(shape.clients(), shape.rate(), shape.arrival(), shape.durationMs(),
                        shape.warmupMs(), report.requestsOk(), report.requestsFailed(),
                        report.errors(), report.achievedPerS(), report.latenessP99Ns());
    }

    private static Stream stream(DriveOptions options, StreamDrive.Report report) {
        StreamShape shape = options.stream();
        if (shape == null) {
            return null;
        }
        return report == null
                ? new Stream(shape.messages(), shape.messageSize(), shape.windows(), null, null, null, null)
                : new Stream(shape.messages(), shape.messageSize(), shape.windows(),
                        report.streamNanos(), report.lost(), Cpu.of(report.client()),
                        Cpu.of(report.server()));
    }

    /** Writes to a temporary name beside the target, then renames, so readers never see half. */
    void writeTo(Path file) throws IOException {
        Path target = file.toAbsolutePath();
        Path temporary = target.resolveSibling(target.getFileName() + ".tmp-" + PeerInfo.pid());
        try {
            Files.deleteIfExists(temporary);
            Files.createFile(temporary,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.write(temporary, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(this));
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }
}
