"""Statistics over raw round-trip samples (nanoseconds). Small pure functions, no I/O.

Methods, stated once:
- Percentiles: linear interpolation between order statistics (Hyndman & Fan type 7, numpy's
  default "linear"), so the median of an even count is the mean of the two middle values.
- Standard deviation: the sample standard deviation (n - 1 in the denominator); 0 for n = 1.
- 95% confidence interval of the mean: the hierarchical bootstrap below (rounds drawn with
  replacement; within a drawn round its mean from the normal approximation, mean ± z·s/√n, kept
  within the round's smallest and largest sample as any mean of its samples is), the
  pooled mean of each resample, widened for few rounds like every bootstrap interval; undefined
  (None) for n < 2. `summarize` alone gives mean ± t(0.975, n − 1)·s/√n of one sample; a case's
  figures (case_stats.py) replace it with the bootstrap over its rounds.
- Outliers, default rule: Tukey's fences, a sample outside [Q1 − k·IQR, Q3 + k·IQR] (k = 1.5) is an
  outlier. Removal is reported, and the raw figures are kept beside the trimmed ones. With rounds,
  the fences are those of all rounds pooled, applied to every round.
- Rounds: every case runs in R rounds, each a fresh pair of peers with its own warm-up. The pooled
  figures are those of all rounds' samples together.
- 95% confidence interval of the median: a hierarchical bootstrap (Saravanan, Berman & Sober 2020,
  "Application of the hierarchical bootstrap to multi-level data in neuroscience"): each of
  B = 4000 resamples draws R rounds with replacement, then, within each drawn round, as many
  samples as it has with replacement; the statistic is the median of the pooled resample; the
  interval is the 2.5th and 97.5th percentile of the B medians, then widened for few rounds (below).
  The median of a resample is drawn
  exactly without materialising the resample: descending a binary split of the sorted values, the
  number of each round's draws on the left is binomial given the number in the node. Seeded from
  the scenario's seed and the case's id, so `ipclab report` gives the same interval again.
- Few rounds: a bootstrap over R clusters underestimates the between-round spread (its variance is
  (R − 1)/R of the true one) and a percentile of it treats the spread as known. So every bootstrap
  interval (medians and ratios) is widened on the log scale around its point estimate by
  f(R) = t(0.975, R − 1) / z(0.975) · √(R / (R − 1)): 2.69 for 3 rounds, 1.58 for 5, 1.27 for 10,
  → 1 as R grows (the Student-t correction of a mean over R clusters). One round: f = 1, and the
  interval covers the within-round sampling only, not run-to-run differences.
- Pooled between-round variance (pooled.py; empirical Bayes, Smyth 2004, limma's moderated t):
  when a run has at least 8 cases of one pattern with two rounds or more, their variances s² of
  the log round medians (R − 1 degrees of freedom each) give a prior, d0 degrees of freedom and
  variance s0², by Smyth's moment estimator (d0 infinite when the variances spread no more than
  sampling alone explains). Each such case's median interval is then the pooled median ×
  exp(∓ t(0.975, d0 + R − 1) · s̃ / √R) with s̃² = (d0·s0² + (R − 1)·s²) / (d0 + R − 1), in
  place of the widened bootstrap: three rounds no longer carry t(0.975, 2) = 4.30 alone, since
  the run's other cases say how far rounds usually spread on this machine today. A case whose
  own variance is beyond the prior's 99th percentile (F(R − 1, d0) test) keeps its bootstrap
  interval: pulling a bimodal case toward calm ones would narrow it below what its rounds show.
  The prior of each pattern is in run.json (`round_variance_prior`). Intervals of a case depend
  on the run's other cases; the differences between runs (the machine's speed from one hour to
  the next) are in no interval of one run: `ipclab compare` notes a whole machine that moved.
- A round's own median interval: the distribution-free interval between two order statistics
  (Conover, "Practical Nonparametric Statistics", 3rd ed., 1999, section 3.2), ranks from the
  binomial(n, 1/2) distribution, coverage at least 95%.
- round_spread: largest round median / smallest. A case is unstable when round_spread > 1.25 and
  the slowest round's median interval lies wholly above the fastest round's. Past three rounds
  (a precision target adds them) the limit grows as the expected range of R normal draws does,
  1.25^(d2(R)/d2(3)): 1.31 for 4 rounds, 1.36 for 5, 1.50 for 10. A fixed limit would flag
  more cases the more rounds they got, for the same machine: one odd round in ten is likelier
  than in three, and the interval over ten rounds already holds it. A case that met its
  precision target is not unstable: its interval, disagreement and all, is as narrow as asked.
- Clients on several hosts (a burst's or a load's, [hosts] clients): the median's interval is a
  three-level bootstrap, hosts with replacement, then each drawn host's rounds, then samples,
  widened by f(H) for H hosts; each host's median (its samples of every round pooled) is kept,
  and a host differs when the host medians spread more than 1.25 and the slowest host's median
  interval lies wholly above the fastest's (the rule for rounds).
- Ratio to the baseline: formed per round against the baseline case measured in the same round;
  the figure is the median of the rounds' ratios, its 95% interval a paired hierarchical bootstrap
  (the same rounds drawn for the case and its baseline; within a round each side's statistic from
  its own resample; for compare = "mean" the resampled mean is drawn from its normal approximation).
  A case is faster or slower than the baseline only when the interval excludes 1.
- A claim's total (a round's sum: a study that timed its whole loop) is drawn as the mean times
  the round's size; its standard deviation and coefficient of variation (sd / mean) by the
  hierarchical bootstrap with each drawn round's samples resampled (the pooled sd holds the
  within-round and the between-round variance), widened by f(R).
- Two runs (`ipclab compare`): the ratio of B's pooled median to A's, its 95% interval the
  percentile interval of the ratios of independent hierarchical bootstrap medians (the runs'
  rounds are not paired), widened by f(R) for the fewer rounds R of the two; beside it the
  two-sided Mann–Whitney U p-value of the two pooled samples. A difference is significant only
  when the interval excludes 1 and p < 0.05.
- Drift: the first tenth of a round's measured samples against its last tenth (Mann–Whitney U,
  two-sided); drift is found when p < 0.001 and the medians differ by more than 5%. It is a
  warm-up when the round sped up and its first tenth is more than 5% slower than the middle
  eight tenths (slow at the start); otherwise a shift: the machine or the program changed speed
  mid-round (a wake-up mode, a frequency change, a growing heap), which more warm-up would not
  cure. On this VM most drift found is a shift.
"""
import functools
from dataclasses import asdict, dataclass

import numpy as np
from scipy import special

# The bootstrap intervals (their method is stated above) live in bootstrap.py; they are part of
# this module's vocabulary, so its callers find every statistic here.
from ipclab.analyse.bootstrap import (BOOTSTRAP_RESAMPLES, bootstrap_mean_ci,  # noqa: F401
                                      few_rounds_factor, hierarchical_dispersion_ci,
                                      hierarchical_mean_ci,
                                      hierarchical_median_ci, host_median_ci,
                                      hierarchical_medians, median_ratio, paired_ratio,
                                      resampled_round_medians, round_statistic, widen)

# In every summary, whatever the tables show: the pivots, the history and the figures read them.
PERCENTILES = {"median": 50.0, "p90": 90.0, "p99": 99.0, "p99_9": 99.9}
DEFAULT_PERCENTILES = tuple(PERCENTILES.values())  # the columns unless --percentiles says others


def percentile_key(p):
    """A percentile's name in a summary and a column: 50 -> "median", 99.9 -> "p99_9"."""
    return "median" if p == 50 else "p" + f"{p:g}".replace(".", "_")


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
    more: tuple = ()  # (key, value) of the asked percentiles beyond PERCENTILES, e.g. p99_99

    def as_dict(self):
        out = asdict(self)
        out.update(out.pop("more"))
        return out


def summarize(samples, percentiles=()):
    """Summary of a non-empty sample, with PERCENTILES and any others of `percentiles` (numpy's
    linear interpolation between order statistics); raises ValueError on an empty one."""
    x = np.asarray(samples, dtype=np.float64)
    if x.size == 0:
        raise ValueError("no samples to summarise")
    low, high = ci95_of_mean(x)
    more = [p for p in percentiles if percentile_key(p) not in PERCENTILES]
    pct = np.percentile(x, [*PERCENTILES.values(), *more])
    return Summary(
        count=int(x.size), min=float(x.min()), mean=float(x.mean()), std=sample_std(x),
        median=float(pct[0]), p90=float(pct[1]), p99=float(pct[2]), p99_9=float(pct[3]),
        max=float(x.max()), ci95_low=low, ci95_high=high,
        more=tuple((percentile_key(p), float(v)) for p, v in zip(more, pct[4:])),
    )


def sample_std(x):
    x = np.asarray(x, dtype=np.float64)
    return float(x.std(ddof=1)) if x.size > 1 else 0.0


def ci95_of_mean(x):
    """(low, high) of the 95% confidence interval of the mean, or (None, None) when n < 2."""
    x = np.asarray(x, dtype=np.float64)
    if x.size < 2:
        return None, None
    half = float(special.stdtrit(x.size - 1, 0.975)) * sample_std(x) / np.sqrt(x.size)
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
UNSTABLE_SPREAD = 1.25
DRIFT_P = 0.001
DRIFT_EFFECT = 0.05


@dataclass(frozen=True)
class Advice:
    """One warning: its kind (warnings are grouped by kind) and its full text for one case."""
    kind: str
    text: str

    def as_dict(self):
        return asdict(self)


# kind -> (what it is, what to do): the grouped terminal line is "<what> in N cases (…): <do>".
ADVICE = {
    "few-samples": ("few samples", "raise --iterations to 1000 or more"),
    "few-windows": ("few windows", "raise --windows to 10 or more"),
    "wide-spread": ("wide spread", "a busy machine? close programs, raise --warmup"),
    "many-outliers": ("many outliers", "a long tail or modes: see the raw columns"),
    "unstable": ("rounds disagree", "the machine changed; rerun with more --rounds"),
    "host-differs": ("a client host differs from the others", "see the client hosts table: "
                                                              "its machine, its network, or (a "
                                                              "burst) its place in the queue"),
    "drift": ("warm-up within rounds", "the first samples are slow: raise --warmup"),
    "shift": ("a shift within rounds", "the machine or the program changed speed mid-round (on "
                                       "a VM, often a wake-up mode), not warm-up: nothing to "
                                       "raise, the median's interval holds it"),
    "busy-cpus": ("other work on the peers' CPUs", "stop other programs, then rerun"),
    "steal": ("hypervisor steal time", "the VM's host was busy; rerun later"),
    "client-late": ("client behind its schedule", "the client, not the server, limited this "
                                                  "rate: a lower rate or the C++ client"),
    "no-knee": ("no knee found", "the lowest rate tried missed it already: lower --sweep-from "
                                 "or loosen --slo"),
    "below-rate": ("rate not achieved", "the server (or the client) gave out below this rate: "
                                        "past the knee"),
}


# Kinds that say what happened but leave the user nothing to do: the terminal shows them as a
# note, not a warning (issue: flag only what a user can act on).
FACTS = frozenset({"shift"})


def advise(kind, detail):
    return Advice(kind, f"{detail}: {ADVICE[kind][1]}")


# A stream's samples are its windows (PROTOCOL.md 11.1): 10 per stream by default.
MIN_WINDOWS = 10


def advice(summary, raw_count, removed, windows=False, tail_is_result=False):
    """Warnings, each with what to do about it, for one case's trimmed summary; `windows`: the
    samples are a stream's windows, not round trips; `tail_is_result`: a wide spread is what
    the case measures (response times under load), not noise to warn about."""
    notes = []
    if windows and raw_count < MIN_WINDOWS:  # a stream's last window (the drain) is often an outlier
        notes.append(advise("few-windows", f"only {raw_count} windows"))
    elif not windows and summary.count < MIN_SAMPLES:
        notes.append(advise("few-samples", f"only {summary.count} samples"))
    if summary.mean > 0 and summary.std / summary.mean > WIDE_CV and not tail_is_result:
        notes.append(advise("wide-spread", f"wide spread (std/mean {summary.std / summary.mean:.2f})"))
    if raw_count and removed / raw_count > MANY_OUTLIERS:
        notes.append(advise("many-outliers", f"{removed} of {raw_count} samples "
                                             f"({100 * removed / raw_count:.0f}%) fell outside "
                                             f"the outlier fences"))
    return notes


# --- rounds -------------------------------------------------------------------------------------

def median_ci_of_round(sorted_x, level=0.95):
    """(low, high): the distribution-free interval of one round's median between the order
    statistics x(j) and x(n+1-j), j the largest rank with P(Binomial(n, 1/2) < j) ≤ (1-level)/2;
    the whole range when n is too small for that (n < 6 at 95%)."""
    x = np.asarray(sorted_x, dtype=np.float64)
    n = x.size
    if n == 0:
        return None, None
    j = binomial_ppf((1 - level) / 2, n, 0.5)  # P(B ≤ j) ≥ 2.5%
    if j >= 1 and special.bdtr(j - 1, n, 0.5) > (1 - level) / 2:
        j -= 1
    if j < 1:
        return float(x[0]), float(x[-1])
    return float(x[j - 1]), float(x[n - j])


def binomial_ppf(q, n, p):
    """The smallest k with P(Binomial(n, p) ≤ k) ≥ q (scipy.stats.binom.ppf), from scipy.special,
    which a CLI start-up can afford (scipy.stats costs 0.7 s to import): bdtrik's real root,
    then the integers beside it checked with the cdf, equal to q within rounding counting as
    reaching it."""
    k = int(np.ceil(special.bdtrik(q, n, p)))
    reaches = lambda j: special.bdtr(j, n, p) >= q * (1 - 1e-12)  # noqa: E731
    while k > 0 and reaches(k - 1):
        k -= 1
    while k < n and not reaches(k):
        k += 1
    return k


def spread_limit_for(rounds, limit=UNSTABLE_SPREAD):
    """The largest-over-smallest spread at which `rounds` round medians disagree: `limit` up to
    three rounds; beyond, the limit a spread of the same size shows among that many rounds. The
    range of R draws grows with R (an odd round in ten is likelier than in three), so a fixed
    limit would flag more cases the more rounds a precision target added: the log-spread limit
    grows as the expected range of R normal draws, d2(R) / d2(3)."""
    if rounds <= 3:
        return limit
    return float(limit ** (_expected_range(rounds) / _expected_range(3)))


@functools.lru_cache(maxsize=None)  # asked again for every case at every re-analysis
def _expected_range(n):
    """d2(n): the expected range of n standard normal draws, ∫ 1 − Φ(x)ⁿ − (1 − Φ(x))ⁿ dx
    (1.128 for 2, 1.693 for 3, 2.326 for 5, 3.078 for 10)."""
    x = np.linspace(-8.0, 8.0, 4001)
    p = special.ndtr(x)
    return float(np.trapezoid(1 - p ** n - (1 - p) ** n, x))


def round_spread(medians):
    """Largest over smallest of the rounds' medians; 1.0 for one round; None without rounds."""
    values = [m for m in medians if m is not None]
    if not values or min(values) <= 0:
        return None
    return max(values) / min(values)


def rounds_disagree(medians, intervals, spread_limit=UNSTABLE_SPREAD):
    """True when the round medians spread more than `spread_limit` (scaled for more than three
    rounds: spread_limit_for) and the slowest round's interval lies wholly above the fastest
    round's."""
    spread = round_spread(medians)
    if spread is None or spread <= spread_limit_for(len(medians), spread_limit):
        return False
    fast, slow = int(np.argmin(medians)), int(np.argmax(medians))
    return intervals[slow][0] > intervals[fast][1]


def scipy_stats():
    """scipy.stats, imported on first use: it is most of `ipclab`'s start-up (0.7 s of 1.2). The
    quantiles every analysis needs come from scipy.special (scipy.stats computes them with the
    same functions); only a Mann–Whitney test imports this."""
    from scipy import stats
    return stats


def mann_whitney_p(a, b):
    """Two-sided Mann–Whitney U p-value of two samples (None when either is empty)."""
    if len(a) == 0 or len(b) == 0:
        return None
    return float(scipy_stats().mannwhitneyu(a, b, alternative="two-sided").pvalue)


def verdict(low, high):
    """"faster", "slower" or "same" (the interval contains 1) for a ratio interval."""
    if low is None or high is None:
        return None
    if high < 1:
        return "faster"
    if low > 1:
        return "slower"
    return "same"


def drift(x, p_limit=DRIFT_P, effect=DRIFT_EFFECT):
    """(last tenth's median / first tenth's, p, shape) when a round's measured samples drift,
    else None; shape "warm-up" (the first tenth slow, the rest agreeing) or "shift" (anything
    else). Needs at least 20 samples in each tenth."""
    x = np.asarray(x, dtype=np.float64)
    tenth = x.size // 10
    if tenth < 20:
        return None
    first, middle, last = x[:tenth], x[tenth:-tenth], x[-tenth:]
    change = float(np.median(last) / np.median(first)) if np.median(first) > 0 else None
    if change is None or abs(change - 1) <= effect:
        return None  # too small to matter: no test needed (and scipy.stats not imported)
    p = mann_whitney_p(first, last)
    if p >= p_limit:
        return None
    early = np.median(first) > (1 + effect) * np.median(middle)  # slow at the start, not late
    return change, p, "warm-up" if change < 1 and early else "shift"
