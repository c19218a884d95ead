package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SysVSharedMemoryTest {
    private final TestKeys keys = new TestKeys();

    @AfterEach
    void removeAll() {
        keys.close();
    }

    @Test
    void twoAttachmentsSeeTheSameBytes() throws Exception {
        int key = TestKeys.key();
        SysVSharedMemory a = keys.track(SysVSharedMemory.create(key, 4096, 0600));
        SysVSharedMemory b = keys.track(SysVSharedMemory.open(key));
        assertEquals(4096, b.size());
        a.attach(false);
        b.attach(true);
        a.write(4000, new byte[] {1, 2, 3}, 0, 3);
        byte[] got = new byte[3];
        b.read(4000, got, 0, 3);
        assertArrayEquals(new byte[] {1, 2, 3}, got);
        assertEquals(4096, b.memory().byteSize());
    }

    @Test
    void accessIsBoundsChecked() throws Exception {
        SysVSharedMemory m = keys.track(SysVSharedMemory.create(TestKeys.key(), 100, 0600));
        m.attach(false);
        assertThrows(IndexOutOfBoundsException.class, () -> m.write(98, new byte[3], 0, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> m.read(-1, new byte[3], 0, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> m.write(0, new byte[3], 2, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> m.memory().get(JAVA_BYTE, 100));
    }

    @Test
    void readOnlyAttachmentRejectsWrites() throws Exception {
        int key = TestKeys.key();
        keys.track(SysVSharedMemory.create(key, 64, 0600));
        SysVSharedMemory ro = keys.track(SysVSharedMemory.open(key));
        MemorySegment mem = ro.attach(true);
        assertThrows(UnsupportedOperationException.class, () -> ro.write(0, new byte[1], 0, 1));
        assertThrows(IllegalArgumentException.class, () -> mem.set(JAVA_BYTE, 0, (byte) 1));
    }

    @Test
    void errorsCarryErrno() throws Exception {
        int key = TestKeys.key();
        assertEquals(LinuxIpcException.ENOENT,
                assertThrows(LinuxIpcException.class, () -> SysVSharedMemory.open(key)).errno());
        keys.track(SysVSharedMemory.create(key, 64, 0600));
        assertEquals(LinuxIpcException.EEXIST,
                assertThrows(LinuxIpcException.class, () -> SysVSharedMemory.create(key, 64, 0600)).errno());
        SysVSharedMemory m = SysVSharedMemory.open(key);
        m.remove();
        // Removed and never attached: the identifier is gone at once.
        assertEquals(LinuxIpcException.EINVAL,
                assertThrows(LinuxIpcException.class, () -> m.attach(false)).errno());
    }
}
