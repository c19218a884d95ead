"""A case's distribution as an HdrHistogram log (records/hdr.py), `samples/<id>.hlog` beside its
raw samples: one interval histogram per ok round, of the times the case's statistics are of
(analyse/case_stats.measured_rounds: round trips for rr, a whole connection for short, a burst
connection's client-side total, a load request's response time from its intended start, a
stream's time per message of each window), in ns, before any outlier rule, so the log's count
and percentiles are those of cases.csv's raw_* columns. Each interval starts where the case's
previous round ended: the time axis is the case's own measured time, rounds back to back."""
from ipclab.analyse import case_stats
from ipclab.plan import patterns
from ipclab.records import hdr


def name_of(record):
    return f"samples/{record['id']}.hlog"


def log_text(record, rounds, settings):
    """The log of `record` from `rounds` (round -> its raw samples), or None without samples."""
    measured = case_stats.measured_rounds(record, rounds, settings)
    if not measured:
        return None
    seconds = {e["round"]: e.get("seconds") or 0.0 for e in record.get("rounds") or []}
    intervals, start = [], 0.0
    for r, values in measured.items():
        intervals.append((start, start + seconds.get(r, 0.0), values))
        start += seconds.get(r, 0.0)
    pattern = patterns.of_record(record)
    return hdr.log_text(intervals, f"ipclab case {record['id']} ({pattern.name}): "
                                   f"{pattern.sample} in ns, one interval per round "
                                   f"({', '.join(f'r{r}' for r in measured)})")
