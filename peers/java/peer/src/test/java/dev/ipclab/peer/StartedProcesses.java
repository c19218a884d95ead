package dev.ipclab.peer;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The peer processes a test started (register with {@code @RegisterExtension}), killed after the
 * test if a failed assertion left one running.
 */
final class StartedProcesses implements AfterEachCallback {
    private final List<Process> started = new ArrayList<>();

    void add(Process process) {
        started.add(process);
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        for (Process process : started) {
            if (process.isAlive()) {
                process.destroyForcibly().waitFor();
            }
        }
        started.clear();
    }
}
