package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FutexTest {
    private static final VarHandle INT = JAVA_INT.varHandle();

    @Test
    void wakeReachesAWaiterOnAnotherThread() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment word = arena.allocate(64, 64);
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
                started.countDown();
                long begin = System.nanoTime();
                try {
                    while ((int) INT.getAcquire(word, 4L) == 0) {
                        assertTrue(Futex.await(word, 4, 0, 10_000_000_000L), "timed out");
                    }
                } catch (LinuxIpcException e) {
                    throw new AssertionError(e);
                }
                return System.nanoTime() - begin;
            });
            started.await();
            Thread.sleep(100);
            INT.setRelease(word, 4L, 1);
            Futex.wake(word, 4, Integer.MAX_VALUE);
            long waited = waiter.get(5, TimeUnit.SECONDS);
            assertTrue(waited < 5_000_000_000L, "woken after " + waited + " ns");
        }
    }

    @Test
    void timedWaitReturnsFalseOnTimeoutAndTrueOnAChangedValue() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment word = arena.allocate(8, 8);
            long begin = System.nanoTime();
            assertFalse(Futex.await(word, 0, 0, 50_000_000L));
            long waited = System.nanoTime() - begin;
            assertTrue(waited >= 40_000_000L && waited < 2_000_000_000L, waited + " ns");
            // The value differs from the expected one: EAGAIN, returns at once.
            assertTrue(Futex.await(word, 0, 7, 1_000_000_000L));
            assertEquals(0, Futex.wake(word, 0, 1));
        }
    }

    @Test
    void rejectsHeapAndMisalignedWords() {
        assertThrows(IllegalArgumentException.class,
                () -> Futex.wake(MemorySegment.ofArray(new int[2]), 0, 1));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment word = arena.allocate(16, 8);
            assertThrows(IllegalArgumentException.class, () -> Futex.await(word, 2, 0, 1));
            assertThrows(IllegalArgumentException.class, () -> Futex.wake(word, 16, 1));
        }
    }
}
