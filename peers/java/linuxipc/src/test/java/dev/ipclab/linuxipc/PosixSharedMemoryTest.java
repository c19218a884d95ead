package dev.ipclab.linuxipc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PosixSharedMemoryTest {
    private final TestKeys keys = new TestKeys();

    @AfterEach
    void removeAll() {
        keys.close();
    }

    @Test
    void twoMappingsShareBytesAndUnlinkRemovesTheName() throws Exception {
        String name = TestKeys.name();
        try (PosixSharedMemory a = PosixSharedMemory.create(name, 8192, 0600)) {
            keys.unlinkShm(name);
            try (PosixSharedMemory b = PosixSharedMemory.open(name, 8192, true)) {
                a.write(8190, new byte[] {7, 8}, 0, 2);
                byte[] got = new byte[2];
                b.read(8190, got, 0, 2);
                assertArrayEquals(new byte[] {7, 8}, got);
                assertThrows(UnsupportedOperationException.class, () -> b.write(0, got, 0, 1));
                assertThrows(IndexOutOfBoundsException.class, () -> a.write(8191, got, 0, 2));
                assertThrows(IndexOutOfBoundsException.class, () -> a.read(0, got, 1, 2));
            }
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(Path.of("/dev/shm" + name))));
            PosixSharedMemory.unlink(name);
            assertFalse(Files.exists(Path.of("/dev/shm" + name)));
        }
    }

    @Test
    void errorsCarryErrno() throws Exception {
        String name = TestKeys.name();
        assertEquals(LinuxIpcException.ENOENT, assertThrows(LinuxIpcException.class,
                () -> PosixSharedMemory.open(name, 64, false)).errno());
        try (PosixSharedMemory a = PosixSharedMemory.create(name, 64, 0600)) {
            keys.unlinkShm(name);
            assertEquals(LinuxIpcException.EEXIST, assertThrows(LinuxIpcException.class,
                    () -> PosixSharedMemory.create(name, 64, 0600)).errno());
            // A read-only descriptor cannot back a writable shared mapping, not even for root.
            assertEquals(LinuxIpcException.EACCES, assertThrows(LinuxIpcException.class,
                    () -> PosixSharedMemory.openReadOnlyMapWritable(name, 64)).errno());
        }
    }
}
