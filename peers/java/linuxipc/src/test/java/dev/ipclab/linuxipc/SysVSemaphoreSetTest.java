package dev.ipclab.linuxipc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SysVSemaphoreSetTest {
    private final TestKeys keys = new TestKeys();

    @AfterEach
    void removeAll() {
        keys.close();
    }

    @Test
    void setAllGetAllSetValueGetValue() throws Exception {
        SysVSemaphoreSet s = keys.track(SysVSemaphoreSet.create(TestKeys.key(), 4, 0600));
        assertArrayEquals(new int[] {0, 0, 0, 0}, s.getAll(4));
        s.setAll(1, 0, 1, 0);
        assertArrayEquals(new int[] {1, 0, 1, 0}, s.getAll(4));
        s.setValue(3, 5);
        assertEquals(5, s.getValue(3));
        s.release(1);
        s.acquire(0);
        assertArrayEquals(new int[] {0, 1, 1, 5}, s.getAll(4));
        assertEquals(4, s.size());
    }

    @Test
    void timedOperationTimesOutAndSucceeds() throws Exception {
        SysVSemaphoreSet s = keys.track(SysVSemaphoreSet.create(TestKeys.key(), 1, 0600));
        long start = System.nanoTime();
        assertFalse(s.op(0, -1, 50_000_000L));
        assertTrue(System.nanoTime() - start >= 40_000_000L);
        s.release(0);
        assertTrue(s.op(0, -1, 50_000_000L));
    }

    @Test
    void waiterIsCountedAndWokenByV() throws Exception {
        SysVSemaphoreSet s = keys.track(SysVSemaphoreSet.create(TestKeys.key(), 1, 0600));
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return s.op(0, -1, 10_000_000_000L);
            } catch (LinuxIpcException e) {
                throw new RuntimeException(e);
            }
        });
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (s.waitingCount(0) == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(1, s.waitingCount(0));
        s.release(0);
        assertTrue(waiter.get(10, TimeUnit.SECONDS));
    }

    @Test
    void removalWakesWaiterWithEidrm() throws Exception {
        SysVSemaphoreSet s = SysVSemaphoreSet.create(TestKeys.key(), 1, 0600);
        keys.track(s);
        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                s.acquire(0);
                return 0;
            } catch (LinuxIpcException e) {
                return e.errno();
            }
        });
        while (s.waitingCount(0) == 0) {
            Thread.onSpinWait();
        }
        s.remove();
        assertEquals(LinuxIpcException.EIDRM, waiter.get(10, TimeUnit.SECONDS));
    }

    @Test
    void errorsCarryErrno() throws Exception {
        int key = TestKeys.key();
        assertEquals(LinuxIpcException.ENOENT,
                assertThrows(LinuxIpcException.class, () -> SysVSemaphoreSet.open(key, 1)).errno());
        keys.track(SysVSemaphoreSet.create(key, 2, 0600));
        assertEquals(LinuxIpcException.EEXIST,
                assertThrows(LinuxIpcException.class, () -> SysVSemaphoreSet.create(key, 2, 0600)).errno());
        SysVSemaphoreSet s = SysVSemaphoreSet.open(key, 2);
        assertEquals(LinuxIpcException.EINVAL,
                assertThrows(LinuxIpcException.class, () -> s.getValue(7)).errno());
    }
}
