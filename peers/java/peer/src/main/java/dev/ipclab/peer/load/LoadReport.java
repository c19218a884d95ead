package dev.ipclab.peer.load;

import dev.ipclab.peer.frame.PeerException;
import dev.ipclab.peer.pattern.Report;
import java.util.Map;

/**
 * What a load run adds to the result file (PROTOCOL.md 11.5.3): the schedule's counts and what
 * became of its measured requests.
 *
 * @param errors kind -> count over the measured requests, kinds with no request left out
 * @param achievedPerS requests_ok × 10⁹ / (the last measured received_ns − W ms); 0 without one
 * @param latenessP99Ns the measured requests' lateness, 99th percentile by nearest rank; null
 *     when none was sent
 * @param failure a response that failed validation, an END_ACK's count, or a connect that failed
 */
public record LoadReport(LoadShape shape, int warmup, int measured, long requestsOk,
        long requestsFailed, Map<String, Long> errors, double achievedPerS, Long latenessP99Ns,
        PeerException failure) implements Report {
    /** The schedule never ran (a connect failed): nothing was measured. */
    static LoadReport notRun(LoadShape shape, Schedule schedule, PeerException failure) {
        return new LoadReport(shape, schedule.warmup(), schedule.measured(), 0, 0, Map.of(), 0,
                null, failure);
    }
}
