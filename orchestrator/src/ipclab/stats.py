"""Statistics over raw round-trip samples (nanoseconds). Small pure functions, no I/O.

Methods, stated once:
- Percentiles: linear interpolation between order statistics (Hyndman & Fan type 7, numpy's
  default "linear"), so the median of an even count is the mean of the two middle values.
- Standard deviation: the sample standard deviation (n - 1 in the denominator); 0 for n = 1.
- 95% confidence interval of the mean: mean ± t(0.975, n - 1) · s / √n (Student's t); undefined
  (None) for n < 2.
- Outliers, default rule: Tukey's fences, a sample outside [Q1 − k·IQR, Q3 + k·IQR] (k = 1.5) is an
  outlier. Removal is reported, and the raw figures are kept beside the trimmed ones.
"""
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats as _scipy_stats

PERCENTILES = {"median": 50.0, "p90": 90.0, "p99": 99.0, "p99_9": 99.9}
OUTLIER_RULES = ("tukey", "none")


@dataclass(frozen=True)
class Summary:
    count: int
    min: float
    mean: float
    std: float
    median: float
    p90: float
    p99: float
    p99_9: float
    max: float
    ci95_low: float | None
    ci95_high: float | None

    def as_dict(self):
        return asdict(self)


def summarize(samples):
    """Summary of a non-empty sample; raises ValueError on an empty one."""
    x = np.asarray(samples, dtype=np.float64)
    if x.size == 0:
        raise ValueError("no samples to summarise")
    low, high = ci95_of_mean(x)
    pct = np.percentile(x, list(PERCENTILES.values()))
    return Summary(
        count=int(x.size), min=float(x.min()), mean=float(x.mean()), std=sample_std(x),
        median=float(pct[0]), p90=float(pct[1]), p99=float(pct[2]), p99_9=float(pct[3]),
        max=float(x.max()), ci95_low=low, ci95_high=high,
    )


def sample_std(x):
    x = np.asarray(x, dtype=np.float64)
    return float(x.std(ddof=1)) if x.size > 1 else 0.0


def ci95_of_mean(x):
    """(low, high) of the 95% confidence interval of the mean, or (None, None) when n < 2."""
    x = np.asarray(x, dtype=np.float64)
    if x.size < 2:
        return None, None
    half = float(_scipy_stats.t.ppf(0.975, x.size - 1)) * sample_std(x) / np.sqrt(x.size)
    mean = float(x.mean())
    return mean - half, mean + half


def tukey_fences(x, k=1.5):
    """(low, high): Q1 − k·IQR and Q3 + k·IQR. With zero spread both fences equal the value."""
    q1, q3 = np.percentile(np.asarray(x, dtype=np.float64), [25.0, 75.0])
    iqr = q3 - q1
    return float(q1 - k * iqr), float(q3 + k * iqr)


def remove_outliers(x, rule="tukey", k=1.5):
    """(kept samples, number removed) under `rule`: "tukey" (fences with factor k) or "none"."""
    x = np.asarray(x)
    if rule == "none" or x.size == 0:
        return x, 0
    if rule != "tukey":
        raise ValueError(f"unknown outlier rule {rule!r}")
    low, high = tukey_fences(x, k)
    mask = (x >= low) & (x <= high)
    return x[mask], int(x.size - mask.sum())


def ratio(value, baseline):
    """value / baseline, or None when either is missing or the baseline is not positive."""
    if value is None or baseline is None or baseline <= 0:
        return None
    return value / baseline


# Thresholds for advice; they are rules of thumb, stated so a user can judge them.
MIN_SAMPLES = 30
WIDE_CV = 0.5
MANY_OUTLIERS = 0.20


def advice(summary, raw_count, removed):
    """Warnings, each with what to do about it, for one case's trimmed summary."""
    notes = []
    if summary.count < MIN_SAMPLES:
        notes.append(f"only {summary.count} samples: the interval is wide; "
                     f"raise --iterations to 1000 or more")
    if summary.mean > 0 and summary.std / summary.mean > WIDE_CV:
        notes.append(f"wide spread (std/mean {summary.std / summary.mean:.2f}): the machine may be "
                     f"busy; close other programs, pin with --placement, raise --warmup")
    if raw_count and removed / raw_count > MANY_OUTLIERS:
        notes.append(f"{removed} of {raw_count} samples ({100 * removed / raw_count:.0f}%) fell "
                     f"outside the outlier fences: the distribution has a long tail or several "
                     f"modes; read the raw figures in cases.csv, or try --warmup or --placement")
    return notes
