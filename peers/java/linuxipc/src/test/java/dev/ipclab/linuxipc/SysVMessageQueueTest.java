package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SysVMessageQueueTest {
    private final TestKeys keys = new TestKeys();

    @AfterEach
    void removeAll() {
        keys.close();
    }

    @Test
    void messagesOfEachTypeGoToTheirReceiver() throws Exception {
        int key = TestKeys.key();
        SysVMessageQueue q = keys.track(SysVMessageQueue.create(key, 0600));
        assertEquals(key, q.key());
        q.send(2, "two".getBytes(StandardCharsets.US_ASCII));
        q.send(1, "one".getBytes(StandardCharsets.US_ASCII));
        SysVMessageQueue other = SysVMessageQueue.open(key);
        assertEquals(q.id(), other.id());
        assertEquals("one", new String(other.receive(1, 100), StandardCharsets.US_ASCII));
        assertEquals("two", new String(other.receive(2, 100), StandardCharsets.US_ASCII));
    }

    @Test
    void preallocatedBuffersCarryTypeAndText() throws Exception {
        SysVMessageQueue q = keys.track(SysVMessageQueue.create(TestKeys.key(), 0600));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = SysVMessageQueue.allocateMessage(arena, 8192);
            MemorySegment in = SysVMessageQueue.allocateMessage(arena, 8192);
            for (int i = 0; i < 8192; i++) {
                out.set(JAVA_BYTE, SysVMessageQueue.TEXT_OFFSET + i, (byte) i);
            }
            q.send(out, 7, 8192);
            assertEquals(8192, q.receive(in, 0));
            assertEquals(7, in.get(JAVA_LONG, 0));
            assertEquals(-1, in.asSlice(8, 8192).mismatch(out.asSlice(8, 8192)));
            assertThrows(IndexOutOfBoundsException.class, () -> q.send(out, 1, 8193));
        }
    }

    /**
     * The byte[] calls (jni-copy's per-message path; a native buffer per call otherwise): a
     * prefix of the array goes, a message lands at the array's start, its length comes back,
     * and the bounds and errno are the segment calls'.
     */
    @Test
    void byteArraysCarryAPrefixAndTheTextLength() throws Exception {
        SysVMessageQueue q = keys.track(SysVMessageQueue.create(TestKeys.key(), 0600));
        byte[] out = new byte[8192];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) (i * 7);
        }
        q.send(3, out, 8192);
        q.send(4, out, 100);
        q.send(5, out, 0);
        byte[] in = new byte[8192];
        assertEquals(100, q.receive(in, 4));
        assertArrayEquals(java.util.Arrays.copyOf(out, 100), java.util.Arrays.copyOf(in, 100));
        assertEquals(0, in[100], "nothing beyond the text is written");
        assertEquals(8192, q.receive(in, 3));
        assertArrayEquals(out, in);
        assertEquals(0, q.receive(in, 5));
        assertThrows(IndexOutOfBoundsException.class, () -> q.send(1, out, 8193));
        assertThrows(IndexOutOfBoundsException.class, () -> q.send(1, out, -1));
        q.send(6, out, 10);
        assertEquals(LinuxIpcException.E2BIG, assertThrows(LinuxIpcException.class,
                () -> q.receive(new byte[9], 6)).errno());
        assertEquals(10, q.receive(in, 6));
    }

    @Test
    void emptyQueueWithNoWaitIsEnomsg() throws Exception {
        SysVMessageQueue q = keys.track(SysVMessageQueue.create(TestKeys.key(), 0600));
        try (Arena arena = Arena.ofConfined()) {
            LinuxIpcException e = assertThrows(LinuxIpcException.class,
                    () -> q.receive(SysVMessageQueue.allocateMessage(arena, 16), 1, 04000));
            assertEquals(LinuxIpcException.ENOMSG, e.errno());
        }
    }

    @Test
    void missingKeyIsEnoent() {
        int key = TestKeys.key();
        LinuxIpcException e = assertThrows(LinuxIpcException.class, () -> SysVMessageQueue.open(key));
        assertEquals(LinuxIpcException.ENOENT, e.errno());
        assertEquals("msgget", e.call());
        assertEquals("No such file or directory", e.strerror());
        assertTrue(e.getMessage().contains("No such file or directory"), e.getMessage());
    }

    @Test
    void exclusiveCreateTwiceIsEexist() throws Exception {
        int key = TestKeys.key();
        keys.track(SysVMessageQueue.create(key, 0600));
        LinuxIpcException e = assertThrows(LinuxIpcException.class, () -> SysVMessageQueue.create(key, 0600));
        assertEquals(LinuxIpcException.EEXIST, e.errno());
    }

    /**
     * EACCES: a queue of mode 0000 opened asking for read-write permission. Root bypasses System V
     * permissions (CAP_IPC_OWNER), so as root the open runs in a child JVM without that capability.
     */
    @Test
    void openingWithoutPermissionIsEacces() throws Exception {
        int key = TestKeys.key();
        keys.track(SysVMessageQueue.create(key, 0000));
        if (!TestKeys.isRoot()) {
            LinuxIpcException e = assertThrows(LinuxIpcException.class,
                    () -> SysVMessageQueue.get(key, 0600));
            assertEquals(LinuxIpcException.EACCES, e.errno());
            return;
        }
        Process child = ChildJvm.start(true, EaccesProbe.class, Integer.toString(key));
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child did not finish");
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        String err = new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals("errno " + LinuxIpcException.EACCES, out, err);
    }

    @Test
    void removedQueueWakesABlockedReceiverWithEidrm() throws Exception {
        SysVMessageQueue q = SysVMessageQueue.create(TestKeys.key(), 0600);
        keys.track(q);
        CompletableFuture<Integer> receiver = CompletableFuture.supplyAsync(() -> {
            try {
                q.receive(1, 16);
                return 0;
            } catch (LinuxIpcException e) {
                return e.errno();
            }
        });
        Thread.sleep(100);
        q.remove();
        assertEquals(LinuxIpcException.EIDRM, receiver.get(10, TimeUnit.SECONDS));
        LinuxIpcException e = assertThrows(LinuxIpcException.class, q::remove);
        assertEquals(LinuxIpcException.EINVAL, e.errno());
    }

    /** The child's side of the EACCES test: prints "errno N" of msgget(key, 0600). */
    public static final class EaccesProbe {
        public static void main(String[] args) {
            try {
                SysVMessageQueue.get(Integer.parseInt(args[0]), 0600);
                System.out.println("opened");
            } catch (LinuxIpcException e) {
                System.out.println("errno " + e.errno());
            }
        }
    }
}
