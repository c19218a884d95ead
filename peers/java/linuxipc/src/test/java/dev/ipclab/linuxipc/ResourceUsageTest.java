package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.junit.jupiter.api.Test;

class ResourceUsageTest {
    @Test
    void readsTheFieldsOfAStructRusage() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment usage = arena.allocate(ResourceUsage.SIZE, 8);
            usage.set(JAVA_LONG, ResourceUsage.UTIME, 2);
            usage.set(JAVA_LONG, ResourceUsage.UTIME + 8, 500_000);
            usage.set(JAVA_LONG, ResourceUsage.STIME, 0);
            usage.set(JAVA_LONG, ResourceUsage.STIME + 8, 7);
            usage.set(JAVA_LONG, ResourceUsage.NVCSW, 11);
            usage.set(JAVA_LONG, ResourceUsage.NIVCSW, 13);
            assertEquals(new ResourceUsage(2_500_000_000L, 7_000L, 11, 13), ResourceUsage.of(usage));
        }
    }

    /** What this thread burns shows in the process's figure (the machine may be busy: CPU, not wall). */
    @Test
    void burningCpuShowsInTheProcessFigure() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long threadBefore = threads.getCurrentThreadCpuTime();
        ResourceUsage before = ResourceUsage.self();
        long giveUp = System.nanoTime() + 10_000_000_000L;
        long x = 0;
        while (threads.getCurrentThreadCpuTime() - threadBefore < 50_000_000L
                && System.nanoTime() < giveUp) {
            x += Long.numberOfTrailingZeros(x + 1);
        }
        ResourceUsage spent = ResourceUsage.self().since(before);
        long burnt = threads.getCurrentThreadCpuTime() - threadBefore;
        assertTrue(x >= 0 && burnt >= 50_000_000L, "burnt " + burnt);
        // getrusage counts in microseconds and ticks; allow 10 ms of difference.
        assertTrue(spent.userNanos() + spent.systemNanos() >= burnt - 10_000_000L,
                spent + " against " + burnt);
        assertTrue(spent.voluntary() >= 0 && spent.involuntary() >= 0, spent.toString());
    }

    @Test
    void sleepingIsAVoluntarySwitch() throws Exception {
        ResourceUsage before = ResourceUsage.self();
        Thread.sleep(20);
        assertTrue(ResourceUsage.self().since(before).voluntary() >= 1);
    }
}
