package dev.ipclab.linuxipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NoReplaceRenameTest {
    @TempDir
    Path dir;

    @Test
    void renamesOnlyWhileTheTargetIsFree() throws Exception {
        Path tmp = dir.resolve("req.tmp");
        Path req = dir.resolve("req");
        try (NoReplaceRename rename = new NoReplaceRename(tmp, req)) {
            Files.writeString(tmp, "first");
            assertTrue(rename.run());
            Files.writeString(tmp, "second");
            assertFalse(rename.run());
            assertEquals("first", Files.readString(req));
            assertEquals("second", Files.readString(tmp));
            Files.delete(req);
            assertTrue(rename.run());
            assertEquals("second", Files.readString(req));
            LinuxIpcException e = assertThrows(LinuxIpcException.class, rename::run);
            assertEquals(LinuxIpcException.ENOENT, e.errno());
        }
    }
}
