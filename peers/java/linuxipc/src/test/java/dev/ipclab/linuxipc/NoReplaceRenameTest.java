package dev.ipclab.linuxipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A stream's writer publishes req.tmp as req only once the reader has taken the previous req. */
class NoReplaceRenameTest {
    @TempDir
    Path dir;

    @Test
    void renamesOnlyWhileTheTargetIsFree() throws Exception {
        try (NoReplaceRename publish = new NoReplaceRename(dir.resolve("req.tmp"), dir.resolve("req"))) {
            assertTrue(publishes(publish, "first"));
            assertFalse(publishes(publish, "second"));
            assertEquals("first", Files.readString(dir.resolve("req")));
            assertEquals("second", Files.readString(dir.resolve("req.tmp")));
            Files.delete(dir.resolve("req"));
            assertTrue(publish.run());
            assertEquals("second", Files.readString(dir.resolve("req")));
            assertEquals(LinuxIpcException.ENOENT,
                    assertThrows(LinuxIpcException.class, publish::run).errno());
        }
    }

    private boolean publishes(NoReplaceRename publish, String text) throws Exception {
        Files.writeString(dir.resolve("req.tmp"), text);
        return publish.run();
    }
}
