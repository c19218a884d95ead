package dev.ipclab.peer.pattern;

import dev.ipclab.peer.frame.PeerException;
import java.io.IOException;

/** The loop of the round-trip patterns, rr and short (PROTOCOL.md sections 7 and 11.2). */
public final class RoundTrips {
    private RoundTrips() {}

    /**
     * Warm-up round trips, measured ones, then the finish. A round trip's time is recorded only
     * after it returned, that is after its checks. Two loops over the same roundTrip, not one
     * loop with an "is this measured?" test: the JIT would compile that test during warm-up as
     * never true and deoptimise at the first measured sample.
     */
    public static void run(Session session, long warmup, long iterations, Samples warm,
            Samples measured) throws PeerException, IOException {
        try (session) {
            long sequence = 0;
            for (; sequence < warmup; sequence++) {
                warm.add(session.roundTrip(sequence));
            }
            for (long end = warmup + iterations; sequence < end; sequence++) {
                measured.add(session.roundTrip(sequence));
            }
            session.finish(sequence);
        }
    }
}
