package dev.ipclab.linuxipc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PosixMessageQueueTest {
    private final TestKeys keys = new TestKeys();

    @AfterEach
    void removeAll() {
        keys.close();
    }

    @Test
    void sendReceiveAndAttributes() throws Exception {
        String name = TestKeys.name();
        try (PosixMessageQueue q = PosixMessageQueue.create(name, 10, 8192, 0600)) {
            keys.unlinkMq(name);
            try (PosixMessageQueue r = PosixMessageQueue.open(name, PosixMessageQueue.O_RDONLY)) {
                q.send(new byte[] {1, 2, 3}, 0);
                q.send(new byte[] {9}, 5);
                assertEquals(new PosixMessageQueue.Attributes(0, 10, 8192, 2), r.attributes());
                assertArrayEquals(new byte[] {9}, r.receive());
                assertArrayEquals(new byte[] {1, 2, 3}, r.receive());
            }
        }
    }

    @Test
    void timedReceiveTimesOut() throws Exception {
        String name = TestKeys.name();
        try (PosixMessageQueue q = PosixMessageQueue.create(name, 4, 64, 0600);
                Arena arena = Arena.ofConfined()) {
            keys.unlinkMq(name);
            MemorySegment buf = arena.allocate(64);
            assertEquals(-1, q.receive(buf, 30_000_000L));
            q.send(buf, 64, 0);
            assertEquals(64, q.receive(buf, 30_000_000L));
        }
    }

    /** The byte[] calls: a prefix goes; blocking and timed receives give the length or -1. */
    @Test
    void byteArraysCarryAPrefixAndTimeOut() throws Exception {
        String name = TestKeys.name();
        try (PosixMessageQueue q = PosixMessageQueue.create(name, 4, 64, 0600)) {
            keys.unlinkMq(name);
            byte[] out = new byte[64];
            for (int i = 0; i < out.length; i++) {
                out[i] = (byte) (100 + i);
            }
            byte[] in = new byte[64];
            assertEquals(-1, q.receive(in, 20_000_000L));
            q.send(out, 64, 0);
            q.send(out, 5, 0);
            q.send(out, 0, 0);
            assertEquals(64, q.receive(in));
            assertArrayEquals(out, in);
            java.util.Arrays.fill(in, (byte) 0);
            assertEquals(5, q.receive(in, 1_000_000_000L));
            assertArrayEquals(java.util.Arrays.copyOf(out, 5), java.util.Arrays.copyOf(in, 5));
            assertEquals(0, in[5]);
            assertEquals(0, q.receive(in));
            assertThrows(IndexOutOfBoundsException.class, () -> q.send(out, 65, 0));
            assertThrows(IllegalArgumentException.class, () -> q.receive(in, -1));
            q.send(out, 1, 0);
            assertEquals(LinuxIpcException.EMSGSIZE, assertThrows(LinuxIpcException.class,
                    () -> q.receive(new byte[63])).errno());
        }
    }

    @Test
    void errorsCarryErrno() throws Exception {
        String name = TestKeys.name();
        assertEquals(LinuxIpcException.ENOENT, assertThrows(LinuxIpcException.class,
                () -> PosixMessageQueue.open(name, PosixMessageQueue.O_RDWR)).errno());
        try (PosixMessageQueue q = PosixMessageQueue.create(name, 4, 64, 0600)) {
            keys.unlinkMq(name);
            assertEquals(LinuxIpcException.EEXIST, assertThrows(LinuxIpcException.class,
                    () -> PosixMessageQueue.create(name, 4, 64, 0600)).errno());
        }
        PosixMessageQueue.unlink(name);
        assertEquals(LinuxIpcException.ENOENT, assertThrows(LinuxIpcException.class,
                () -> PosixMessageQueue.unlink(name)).errno());
    }

    /**
     * A receiver creates its queue read-only; a non-blocking writer then finds it full (EAGAIN)
     * instead of waiting, and the receiver cannot send on it (EBADF).
     */
    @Test
    void readOnlyCreateAndNonBlockingWriter() throws Exception {
        String name = TestKeys.name();
        try (PosixMessageQueue in = PosixMessageQueue.create(name, PosixMessageQueue.O_RDONLY, 1,
                32, 0600); Arena arena = Arena.ofConfined()) {
            keys.unlinkMq(name);
            assertEquals(new PosixMessageQueue.Attributes(0, 1, 32, 0), in.attributes());
            MemorySegment buf = arena.allocate(32);
            assertEquals(EBADF, assertThrows(LinuxIpcException.class,
                    () -> in.send(buf, 32, 0)).errno());
            try (PosixMessageQueue out = PosixMessageQueue.open(name,
                    PosixMessageQueue.O_WRONLY | PosixMessageQueue.O_NONBLOCK)) {
                out.send(buf, 32, 0);
                assertEquals(LinuxIpcException.EAGAIN, assertThrows(LinuxIpcException.class,
                        () -> out.send(buf, 32, 0)).errno());
            }
            assertEquals(32, in.receive(buf));
        }
    }

    private static final int EBADF = 9;

    /** mq_open fails with EACCES for a name with more than one slash, even for root. */
    @Test
    void nameWithTwoSlashesIsEacces() {
        assertEquals(LinuxIpcException.EACCES, assertThrows(LinuxIpcException.class,
                () -> PosixMessageQueue.open(TestKeys.name() + "/x", PosixMessageQueue.O_RDWR)).errno());
    }
}
