"""HdrHistogram interval logs: the V2 log format that HdrHistogram's own tools read
(HistogramLogProcessor, the plotters, the `hdrhistogram` package's HistogramLogReader), written by
that package rather than by hand. Each line is one interval's histogram of times in ns; its
"Interval_Max" column is in ms (`max_value_unit_ratio`), as those tools show it.

Two writers use it: a load round's response and service times, one interval per second of
intended starts (execute/load.py), and every case's times, one interval per round
(output/hlogs.py)."""
import io

import numpy as np

RANGE = (1, 3600 * 10**9, 3)  # lowest and highest trackable ns, significant digits
MAX_UNIT_RATIO = 1e6          # the max column in ms


def histogram(values):
    """An HdrHistogram of `values` (ns), each clamped into RANGE. Equal values are recorded
    once with their count: a round of 100 000 round trips has a few thousand distinct values."""
    from hdrh.histogram import HdrHistogram
    found = HdrHistogram(*RANGE)
    clamped = np.clip(np.rint(np.asarray(values, dtype=np.float64)), RANGE[0], RANGE[1])
    distinct, counts = np.unique(clamped.astype(np.int64), return_counts=True)
    for value, count in zip(distinct.tolist(), counts.tolist()):
        found.record_value(value, count)
    return found


def log_text(intervals, comment):
    """The log's text: `comment` as its header, then one line per (start s, end s, values) of
    `intervals` (seconds from the log's start), empty intervals left out."""
    from hdrh.log import HistogramLogWriter
    out = io.StringIO()
    writer = HistogramLogWriter(out)
    writer.output_log_format_version()
    for line in comment.splitlines():
        writer.output_comment(line)
    writer.output_legend()
    for start, end, values in intervals:
        if len(values):
            found = histogram(values)
            # The writer takes a start of 0 as "none given" and reads the histogram's own
            # stamps (ms) instead: set them too, so both say the same.
            found.set_start_time_stamp(int(start * 1000))
            found.set_end_time_stamp(int(end * 1000))
            writer.output_interval_histogram(found, start, end, max_value_unit_ratio=MAX_UNIT_RATIO)
    return out.getvalue()
