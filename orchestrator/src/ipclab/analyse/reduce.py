"""The reductions a run needs while it runs, and the bench commands beside it: a median, a
percentile, a mean, nearest-rank percentiles, the modes of a latency sample. They live here so
that every statistic ipclab prints is computed in analyse/: execute/ calls these where it must
decide during a run (a rate sweep's step, the progress line, the preflight note, the floors,
--explain's medians over rounds) and keeps the results in the record; it computes none itself
(test_layers.py checks that execute/ calls no numpy statistic).

Each function takes a sequence (a list or an array of numbers) and returns plain floats or ints."""
import math

import numpy as np

# Modes of a latency sample (the preflight probe's note: wake-ups on a VM come in modes).
MODE_SHARE = 0.05            # a mode holds at least this share of the values
MODE_RATIO = 2.0             # and lies at least this factor from the other
VALLEY = 0.25                # with a valley below this share of the smaller peak between them
BIN_DECADES = 0.05           # histogram bins in log10(ns)


def median(values):
    """The median (the mean of the middle two of an even count), None for no values."""
    x = np.asarray(values, dtype=np.float64)
    return float(np.median(x)) if x.size else None


def percentile(values, percent):
    """numpy's linear-interpolation percentile, None for no values."""
    x = np.asarray(values, dtype=np.float64)
    return float(np.percentile(x, percent)) if x.size else None


def mean(values):
    x = np.asarray(values, dtype=np.float64)
    return float(np.mean(x)) if x.size else None


def relative_change(base, values):
    """How much larger the median of `values` is than the median of `base` (0.05: 5%); None when
    either is empty or the base's median is not positive."""
    if base is None or values is None or not len(base) or not len(values):
        return None
    low = median(base)
    return median(values) / low - 1 if low > 0 else None


def nearest_rank(percent, n):
    """The 1-based rank of the `percent` percentile of n values: ⌈percent·n/100⌉, at least 1
    (rounded first, so that 99.9 % of 1000 is rank 999, not 1000 by a float's last bit)."""
    return max(1, math.ceil(round(percent * n / 100, 9)))


def ranked(values, percents):
    """{percent: the nearest-rank percentile (a value of the sample)} of a non-empty array."""
    ordered = np.sort(np.asarray(values))
    return {p: ordered[nearest_rank(p, ordered.size) - 1].item() for p in percents}


def spread(samples):
    """A latency sample's smallest value, median and 10th, 90th and 99th percentiles (ns)."""
    x = np.asarray(samples)
    return {"min_ns": float(x.min()), "median_ns": median(x), "p10_ns": percentile(x, 10),
            "p90_ns": percentile(x, 90), "p99_ns": percentile(x, 99)}


def modes(samples):
    """[(median ns, share)] of the modes of a latency sample, fastest first: one entry when it has
    one mode. Modes are found in a histogram of log10(ns): two peaks each holding at least
    MODE_SHARE of the samples, at least MODE_RATIO apart, with a valley between them lower than
    VALLEY times the smaller peak. Only the two largest modes are reported."""
    x = np.asarray(samples, dtype=np.float64)
    x = x[x > 0]
    if x.size < 50:
        return [(median(x), 1.0)] if x.size else []
    logs = np.log10(x)
    edges = np.arange(logs.min(), logs.max() + BIN_DECADES, BIN_DECADES)
    if edges.size < 3:
        return [(median(x), 1.0)]
    counts, edges = np.histogram(logs, bins=edges)
    counts = np.convolve(counts, [1, 1, 1], mode="same")  # smooth one bin each way
    best = _best_split(x, logs, counts, edges)
    if best is None:
        return [(median(x), 1.0)]
    low, high = best
    return [(median(low), low.size / x.size), (median(high), high.size / x.size)]


def _best_split(x, logs, counts, edges):
    """(low, high) of the two modes whose smaller holds the most values, or None."""
    peaks = [i for i in range(counts.size)
             if counts[i] > 0 and counts[i] >= counts[max(i - 1, 0)]
             and counts[i] >= counts[min(i + 1, counts.size - 1)]]
    best = None
    for a in peaks:
        for b in peaks:
            if b <= a or (edges[b] - edges[a]) < np.log10(MODE_RATIO):
                continue
            if counts[a:b + 1].min() >= VALLEY * min(counts[a], counts[b]):
                continue
            cut = edges[a + int(np.argmin(counts[a:b + 1]))]
            low, high = x[logs < cut], x[logs >= cut]
            if min(low.size, high.size) < MODE_SHARE * x.size:
                continue
            if best is None or min(low.size, high.size) > min(best[0].size, best[1].size):
                best = (low, high)
    return best
