package dev.ipclab.peer;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A `drive` command line run in this JVM (Main.run): its exit code and what it wrote on stderr. */
record InProcessDrive(int code, String error) {

    /** `drive --mechanism M --endpoint E` with its samples and result files in `dir`, and `more`. */
    static InProcessDrive run(Path dir, String mechanism, String endpoint, String... more) {
        List<String> args = new ArrayList<>(List.of("drive", "--mechanism", mechanism,
                "--endpoint", endpoint, "--samples-file", dir.resolve("s").toString(),
                "--result-file", dir.resolve("r.json").toString()));
        args.addAll(List.of(more));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args.toArray(String[]::new),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new InProcessDrive(code, err.toString(StandardCharsets.UTF_8));
    }
}
