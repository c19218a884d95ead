package dev.ipclab.peer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

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
        long warmupSamples) {

    static final String SCHEMA = "ipclab.peer-result/1";

    /** @param failure null for success */
    static Result of(DriveOptions options, PeerException failure, long samples,
            long warmupSamples) {
        return new Result(SCHEMA,
                failure == null ? "ok" : "error",
                failure == null ? null : failure.kind().label(),
                failure == null ? null : failure.getMessage(),
                PeerInfo.LANGUAGE, PeerInfo.RUNTIME,
                options.mechanism(), options.pattern(),
                options.requestSize(), options.responseSize(),
                options.warmup(), options.iterations(),
                options.payload(), options.structured() ? options.sequenceLength() : null,
                samples, PeerInfo.CLOCK, PeerInfo.pid(), PeerInfo.CONTRACT, warmupSamples);
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
