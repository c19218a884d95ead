package dev.ipclab.linuxipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NamedPipesAndFtokTest {
    @TempDir
    Path dir;

    @Test
    void mkfifoMakesAFifoAndFailsIfThePathExists() throws Exception {
        Path fifo = dir.resolve("f");
        NamedPipes.mkfifo(fifo, 0600);
        assertTrue(!Files.isRegularFile(fifo, LinkOption.NOFOLLOW_LINKS));
        assertEquals("p", Files.getAttribute(fifo, "unix:mode") instanceof Integer m
                && (m & 0170000) == 0010000 ? "p" : "?");
        assertEquals(LinuxIpcException.EEXIST,
                assertThrows(LinuxIpcException.class, () -> NamedPipes.mkfifo(fifo, 0600)).errno());
        assertEquals(LinuxIpcException.ENOENT, assertThrows(LinuxIpcException.class,
                () -> NamedPipes.mkfifo(dir.resolve("missing/f"), 0600)).errno());
    }

    @Test
    void umaskReturnsThePreviousMask() {
        int previous = NamedPipes.umask(0077);
        try {
            assertEquals(0077, NamedPipes.umask(0077));
        } finally {
            NamedPipes.umask(previous);
        }
    }

    @Test
    void ftokIsStableAndDependsOnTheProjectId() throws Exception {
        Path file = Files.createFile(dir.resolve("k"));
        int a = Ftok.ftok(file, 1);
        assertEquals(a, Ftok.ftok(file, 1));
        assertNotEquals(a, Ftok.ftok(file, 2));
        assertEquals(LinuxIpcException.ENOENT,
                assertThrows(LinuxIpcException.class, () -> Ftok.ftok(dir.resolve("none"), 1)).errno());
    }
}
