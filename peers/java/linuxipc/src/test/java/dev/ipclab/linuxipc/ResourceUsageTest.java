package dev.ipclab.linuxipc;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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

    @Test
    void burningCpuShowsAsUserTimeOfThisProcess() throws Exception {
        ResourceUsage before = ResourceUsage.self();
        long end = System.nanoTime() + 50_000_000L;
        long x = 0;
        while (System.nanoTime() < end) {
            x += Long.numberOfTrailingZeros(x + 1);
        }
        ResourceUsage spent = ResourceUsage.self().since(before);
        assertTrue(x >= 0);
        assertTrue(spent.userNanos() + spent.systemNanos() >= 30_000_000L, spent.toString());
        assertTrue(spent.userNanos() < 5_000_000_000L, spent.toString());
        assertTrue(spent.voluntary() >= 0 && spent.involuntary() >= 0, spent.toString());
    }

    @Test
    void sleepingIsAVoluntarySwitch() throws Exception {
        ResourceUsage before = ResourceUsage.self();
        Thread.sleep(20);
        assertTrue(ResourceUsage.self().since(before).voluntary() >= 1);
    }
}
