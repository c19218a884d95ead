package dev.ipclab.peer.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ipclab.peer.frame.Vectors;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** PROTOCOL.md 11.5.2: the schedule, against vectors.json's load_schedules. */
class ScheduleTest {
    @Test
    void offsetsMatchTheVectorsWithinOneNanosecond() {
        List<JsonNode> schedules = Vectors.list("load_schedules");
        assertTrue(schedules.size() >= 6, "the vectors hold fixed and poisson schedules");
        for (JsonNode vector : schedules) {
            long seed = Vectors.u64(vector, "seed");
            long rate = vector.get("rate").asLong();
            int count = vector.get("count").asInt();
            long[] offsets = vector.get("arrival").asText().equals("poisson")
                    ? poissonPrefix(seed, rate, count)
                    : Schedule.fixed(rate, count * 1000L / rate + 1, Long.MAX_VALUE);
            for (int k = 0; k < count; k++) {
                long expected = vector.get("offsets_ns").get(k).asLong();
                assertTrue(Math.abs(offsets[k] - expected) <= 1, vector + ": offset " + k + " is "
                        + offsets[k]);
            }
        }
    }

    private static long[] poissonPrefix(long seed, long rate, int count) {
        Schedule.Arrivals arrivals = new Schedule.Arrivals(seed, rate);
        long[] offsets = new long[count];
        for (int k = 0; k < count; k++) {
            offsets[k] = arrivals.next();
        }
        return offsets;
    }

    @Test
    void theScheduleEndsBeforeWarmupPlusDurationAndTheWarmupIsAPrefix() {
        Schedule fixed = Schedule.of(1, shape(3, false, 1000, 500), 1 << 20);
        // o_k = ⌊k × 10⁹ / 3⌋ < 1.5 s: k = 0 … 4; warm-up o_k < 0.5 s: k = 0, 1.
        assertEquals(5, fixed.size());
        assertEquals(2, fixed.warmup());
        assertEquals(3, fixed.measured());
        assertEquals(1_333_333_333L, fixed.offset(4));
        Schedule poisson = Schedule.of(42, shape(20_000, true, 200, 0), 1 << 20);
        assertEquals(0, poisson.warmup());
        assertTrue(poisson.offset(poisson.size() - 1) < 200_000_000L);
        assertTrue(Math.abs(poisson.size() - 4000) < 400, "about R × D requests: " + poisson.size());
        assertThrows(IllegalArgumentException.class,
                () -> Schedule.of(1, shape(10_000_000, false, 1000, 0), 1000));
    }

    private static LoadShape shape(long rate, boolean poisson, long durationMs, long warmupMs) {
        return new LoadShape(2, rate, poisson, durationMs, warmupMs, Path.of("/dev/null"));
    }
}
