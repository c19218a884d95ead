package dev.ipclab.peer;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Fuzz target for the command line (PROTOCOL.md section 1), below Main so that nothing exits:
 * Cli.parse on any arguments either returns a command or throws UsageException (exit 2). Any
 * other exception would reach Main as an internal error (exit 1), a finding. `mvn test` replays
 * the committed inputs under src/test/resources/dev/ipclab/peer/CliFuzzTestInputs/parse/.
 */
class CliFuzzTest {
    /**
     * The input is the arguments one per line (UTF-8; invalid bytes become U+FFFD): readable
     * seeds, and the fuzzer's line splices move whole flags.
     */
    @FuzzTest
    void parse(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        String[] args = text.isEmpty() ? new String[0] : text.split("\n", -1);
        try {
            Cli.parse(args);
        } catch (UsageException e) {
            // The answer to a bad command line.
        }
    }
}
