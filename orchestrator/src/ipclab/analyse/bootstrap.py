"""The bootstrap intervals of ipclab: the hierarchical bootstrap of a case's median over its rounds
(drawn exactly, without materialising a resample; over hosts first where its clients ran on
several), the paired ratio to a baseline, two runs'
ratio, the percentile bootstrap of a mean, and the few-rounds widening. Pure functions, seeded by
the caller. The methods are stated in stats.py's docstring (written into run.json)."""
import numpy as np
from scipy import special

BOOTSTRAP_RESAMPLES = 4000


class _Pool:
    """The rounds of one case, sorted, on a common grid of distinct values, for drawing the medians
    of hierarchical resamples exactly (see the module's note)."""

    def __init__(self, rounds):
        self.rounds = [np.sort(np.asarray(r, dtype=np.float64)) for r in rounds]
        if not self.rounds or any(r.size == 0 for r in self.rounds):
            raise ValueError("every round needs samples")
        self.grid = np.unique(np.concatenate(self.rounds))
        # below[r, j]: how many of round r's values are smaller than grid[j]; below[r, M] = n_r
        self.below = np.array([np.searchsorted(r, np.append(self.grid, np.inf), "left")
                               for r in self.rounds], dtype=np.int64)
        self.n = np.array([r.size for r in self.rounds], dtype=np.int64)

    def medians(self, chosen, rng):
        """For each row of `chosen` (B × S round indices), the median of one resample made of S
        slots, slot s holding n[chosen[b, s]] draws with replacement from that round."""
        b, s = chosen.shape
        total = self.n[chosen].sum(axis=1)
        ranks = ((total + 1) // 2, total // 2 + 1)  # equal for odd totals (type 7 median)
        states = [self._start(chosen, k) for k in ranks]
        rows = np.arange(b)[:, None]
        for _ in range(int(np.ceil(np.log2(max(self.grid.size, 2)))) + 1):
            a, c = states
            left_a = self._split(a, chosen, rows, rng)
            same = (a["lo"] == c["lo"]) & (a["hi"] == c["hi"])
            left_c = np.where(same[:, None], left_a, self._split(c, chosen, rows, rng))
            self._descend(a, left_a)
            self._descend(c, left_c)
        return (self.grid[states[0]["lo"]] + self.grid[states[1]["lo"]]) / 2

    def _start(self, chosen, rank):
        b = chosen.shape[0]
        return {"lo": np.zeros(b, dtype=np.int64), "hi": np.full(b, self.grid.size, dtype=np.int64),
                "count": self.n[chosen].copy(), "rank": rank.copy()}

    def _split(self, st, chosen, rows, rng):
        lo, hi = st["lo"][:, None], st["hi"][:, None]
        mid = (lo + hi) // 2
        inside = self.below[chosen, hi] - self.below[chosen, lo]
        left = self.below[chosen, mid] - self.below[chosen, lo]
        p = np.divide(left, inside, out=np.zeros(left.shape), where=inside > 0)
        draws = rng.binomial(st["count"], p)
        return np.where((hi - lo) > 1, draws, st["count"])

    @staticmethod
    def _descend(st, left):
        active = (st["hi"] - st["lo"]) > 1
        mid = (st["lo"] + st["hi"]) // 2
        on_left = left.sum(axis=1)
        go_left = st["rank"] <= on_left
        st["hi"] = np.where(active & go_left, mid, st["hi"])
        st["lo"] = np.where(active & ~go_left, mid, st["lo"])
        st["count"] = np.where((active & ~go_left)[:, None], st["count"] - left,
                               np.where(active[:, None], left, st["count"]))
        st["rank"] = np.where(active & ~go_left, st["rank"] - on_left, st["rank"])


def hierarchical_medians(rounds, rng, resamples=BOOTSTRAP_RESAMPLES):
    """The medians of `resamples` hierarchical resamples of `rounds` (rounds with replacement,
    then samples within each drawn round)."""
    pool = _Pool(rounds)
    r = len(pool.rounds)
    chosen = rng.integers(0, r, size=(resamples, r))
    return pool.medians(chosen, rng)


def hierarchical_median_ci(rounds, rng, resamples=BOOTSTRAP_RESAMPLES, level=0.95):
    """(low, high): the percentile interval of the median of all rounds pooled, by a
    hierarchical bootstrap (rounds with replacement, then samples within each drawn round)."""
    r = len(rounds)
    medians = hierarchical_medians(rounds, rng, resamples)
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(medians, [tail, 100 - tail])
    point = float(np.median(np.concatenate([np.asarray(x, dtype=np.float64) for x in rounds])))
    return widen(point, float(low), float(high), few_rounds_factor(r, level))


def host_median_ci(cells, rng, resamples=BOOTSTRAP_RESAMPLES, level=0.95):
    """(low, high): the interval of the median of every sample of a case whose clients ran on
    several hosts, by a three-level bootstrap: hosts with replacement, then each drawn host's
    rounds with replacement, then samples within each drawn round; widened for few hosts (the
    top level's clusters) as a round-level interval is for few rounds. `cells[h][r]`: host h's
    samples in round r, every host with the same rounds, none empty."""
    h, r = len(cells), len(cells[0])
    pool = _Pool([c for host in cells for c in host])
    hosts = rng.integers(0, h, size=(resamples, h))
    rounds = rng.integers(0, r, size=(resamples, h, r))
    medians = pool.medians((hosts[:, :, None] * r + rounds).reshape(resamples, h * r), rng)
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(medians, [tail, 100 - tail])
    point = float(np.median(np.concatenate([c for host in cells for c in host])))
    return widen(point, float(low), float(high), few_rounds_factor(h, level))


def median_ratio(a_rounds, b_rounds, rng, resamples=BOOTSTRAP_RESAMPLES, level=0.95):
    """(ratio, low, high): the median of b's rounds pooled over a's, and its interval from
    independent hierarchical bootstraps of a and b (two runs: their rounds are not paired),
    widened for the fewer rounds of the two. None for all three when a's median is not
    positive."""
    a = np.concatenate([np.asarray(x, dtype=np.float64) for x in a_rounds])
    b = np.concatenate([np.asarray(x, dtype=np.float64) for x in b_rounds])
    if np.median(a) <= 0:
        return None, None, None
    point = float(np.median(b) / np.median(a))
    ratios = (hierarchical_medians(b_rounds, rng, resamples)
              / hierarchical_medians(a_rounds, rng, resamples))
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(ratios[np.isfinite(ratios)], [tail, 100 - tail])
    factor = few_rounds_factor(min(len(a_rounds), len(b_rounds)), level)
    low, high = widen(point, float(low), float(high), factor)
    return point, low, high


def bootstrap_mean_ci(x, seed=0, resamples=2000, level=0.95):
    """(low, high): the percentile bootstrap interval of the mean of x, seeded so a report gives
    it again. Unlike mean ± t·s/√n it stays inside the data's range and is as skewed as they are."""
    x = np.asarray(x, dtype=np.float64)
    rng = np.random.default_rng(seed)
    chunk = max(1, min(resamples, 2_000_000 // x.size))  # resamples drawn together, memory bounded
    means = np.concatenate([x[rng.integers(0, x.size, (min(chunk, resamples - done), x.size))]
                            .mean(axis=1) for done in range(0, resamples, chunk)])
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def hierarchical_mean_ci(rounds, rng, resamples=BOOTSTRAP_RESAMPLES, level=0.95):
    """(low, high): the interval of the mean of all rounds pooled, by the hierarchical bootstrap
    (rounds with replacement; within a drawn round its mean from the normal approximation, as
    the paired ratio of means draws it), widened for few rounds like the median's."""
    r = len(rounds)
    chosen = rng.integers(0, r, size=(resamples, r))
    sizes = np.array([len(x) for x in rounds], dtype=np.float64)
    means = _slot_statistics(rounds, chosen, rng, "mean")
    pooled = (means * sizes[chosen]).sum(axis=1) / sizes[chosen].sum(axis=1)
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(pooled, [tail, 100 - tail])
    point = float(np.concatenate([np.asarray(x, dtype=np.float64) for x in rounds]).mean())
    return widen(point, float(low), float(high), few_rounds_factor(r, level))


def few_rounds_factor(r, level=0.95):
    """f(R) of the module's text: how much wider a bootstrap interval over R rounds must be."""
    if r < 2:
        return 1.0
    q = 1 - (1 - level) / 2
    return float(special.stdtrit(r - 1, q) / special.ndtri(q) * np.sqrt(r / (r - 1)))


def widen(point, low, high, factor):
    """(low, high) stretched by `factor` around `point` on the log scale (so it stays positive)."""
    if factor == 1.0 or point <= 0 or low <= 0 or high <= 0:
        return low, high
    return point * (low / point) ** factor, point * (high / point) ** factor


DISPERSIONS = ("sd", "cv")


def round_statistic(x, compare):
    """A round's median, mean, total (its sum: a loop timed whole), sd or cv (sd / mean)."""
    x = np.asarray(x, dtype=np.float64)
    if compare == "median":
        return float(np.median(x))
    if compare == "total":
        return float(x.sum())
    if compare in DISPERSIONS:
        sd = float(x.std(ddof=1)) if x.size > 1 else 0.0
        return sd if compare == "sd" else sd / float(x.mean()) if x.mean() > 0 else float("nan")
    return float(x.mean())


def hierarchical_dispersion_ci(rounds, rng, which, resamples=BOOTSTRAP_RESAMPLES, level=0.95):
    """(figure, low, high): the standard deviation (or cv) of all rounds pooled and its interval
    by the hierarchical bootstrap: rounds with replacement, then each drawn round's samples with
    replacement; the pooled sd from the drawn rounds' means and sds (the within-round and the
    between-round variance both), widened for few rounds like the median's."""
    r = len(rounds)
    chosen = rng.integers(0, r, size=(resamples, r))
    drawn = [_resampled_moments(rounds, chosen[:, s], rng) for s in range(r)]
    means = np.stack([m for m, _ in drawn], axis=1)
    sds = np.stack([sd for _, sd in drawn], axis=1)
    sizes = np.array([len(x) for x in rounds], dtype=np.float64)[chosen]
    total = sizes.sum(axis=1)
    grand = (means * sizes).sum(axis=1) / total
    pooled_var = (((sizes - 1) * sds ** 2).sum(axis=1)
                  + (sizes * (means - grand[:, None]) ** 2).sum(axis=1)) / np.maximum(total - 1, 1)
    pooled = np.sqrt(pooled_var) if which == "sd" else np.sqrt(pooled_var) / grand
    everything = np.concatenate([np.asarray(x, dtype=np.float64) for x in rounds])
    point = round_statistic(everything, which)
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(pooled[np.isfinite(pooled)], [tail, 100 - tail])
    return (point, *widen(point, float(low), float(high), few_rounds_factor(r, level)))


def _resampled_moments(rounds, chosen, rng, budget=4_000_000):
    """(means, sds) of a fresh resample (with replacement, the round's size) of round chosen[b]
    for each b, drawn a block at a time so that no more than `budget` values are held."""
    means, sds = np.empty(chosen.size), np.empty(chosen.size)
    for r in np.unique(chosen):
        x = np.asarray(rounds[r], dtype=np.float64)
        where = np.flatnonzero(chosen == r)
        block = max(1, budget // max(x.size, 1))
        for start in range(0, where.size, block):
            slots = where[start:start + block]
            draws = x[rng.integers(0, x.size, (slots.size, x.size))]
            means[slots] = draws.mean(axis=1)
            sds[slots] = draws.std(axis=1, ddof=1) if x.size > 1 else 0.0
    return means, sds


def paired_ratio(case_rounds, base_rounds, rng, compare="median",
                 resamples=BOOTSTRAP_RESAMPLES, level=0.95):
    """(ratio, low, high) of a case to its baseline, rounds paired by index (round i of the case
    against round i of the baseline): the median of the rounds' ratios and its paired
    hierarchical bootstrap interval. None for all three without a common round."""
    if len(case_rounds) != len(base_rounds) or not case_rounds:
        raise ValueError("paired_ratio needs the same number (≥ 1) of case and baseline rounds")
    point = [round_statistic(c, compare) / round_statistic(b, compare)
             for c, b in zip(case_rounds, base_rounds) if round_statistic(b, compare) > 0]
    if len(point) != len(case_rounds):
        return None, None, None
    r = len(case_rounds)
    chosen = rng.integers(0, r, size=(resamples, r))
    case_stats = _slot_statistics(case_rounds, chosen, rng, compare)
    base_stats = _slot_statistics(base_rounds, chosen, rng, compare)
    ratios = np.median(case_stats / base_stats, axis=1)
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(ratios, [tail, 100 - tail])
    figure = float(np.median(point))
    low, high = widen(figure, float(low), float(high), few_rounds_factor(r, level))
    return figure, low, high


def _slot_statistics(rounds, chosen, rng, compare):
    """B × S: the statistic of a fresh within-round resample of round chosen[b, s]."""
    if compare == "median":
        return np.stack([resampled_round_medians(rounds, chosen[:, s], rng)
                         for s in range(chosen.shape[1])], axis=1)
    if compare in DISPERSIONS:
        moments = [_resampled_moments(rounds, chosen[:, s], rng) for s in range(chosen.shape[1])]
        return np.stack([sd if compare == "sd" else sd / mean for mean, sd in moments], axis=1)
    if compare == "total":
        sizes = np.array([len(r) for r in rounds], dtype=np.float64)
        return _slot_statistics(rounds, chosen, rng, "mean") * sizes[chosen]
    means = np.array([np.mean(r) for r in rounds], dtype=np.float64)
    errors = np.array([_standard_error(r) for r in rounds])
    drawn = means[chosen] + rng.standard_normal(chosen.shape) * errors[chosen]
    # A mean of a round's own samples lies within their range. A heavy-tailed round (a few
    # stalls 100 times the rest: JNI's 5 µs ± 126 µs) has a standard error near its mean, and
    # unclipped normal draws went below zero: a ratio interval of [-218, 338].
    lows = np.array([np.min(r) for r in rounds], dtype=np.float64)
    highs = np.array([np.max(r) for r in rounds], dtype=np.float64)
    return np.clip(drawn, lows[chosen], highs[chosen])


def resampled_round_medians(rounds, chosen, rng):
    """For each entry of `chosen` (round indices), the median of n draws with replacement from
    that round (n its size), drawn exactly through order statistics: the k-th smallest of n
    uniform indices is floor(n·U(k)) with U(k) ~ Beta(k, n − k + 1); for an even n the next one
    is U(k) + (1 − U(k))·Beta(1, n − k)."""
    sorted_rounds = [np.sort(np.asarray(r, dtype=np.float64)) for r in rounds]
    n = np.array([r.size for r in sorted_rounds])
    table = np.full((len(sorted_rounds), n.max()), np.nan)
    for i, r in enumerate(sorted_rounds):
        table[i, :r.size] = r
    size = n[chosen]
    k = (size + 1) // 2
    u1 = rng.beta(k, size - k + 1)
    u2 = np.where(size % 2 == 0, u1 + (1 - u1) * rng.beta(1, np.maximum(size - k, 1)), u1)
    i1 = np.minimum((u1 * size).astype(np.int64), size - 1)
    i2 = np.minimum((u2 * size).astype(np.int64), size - 1)
    return (table[chosen, i1] + table[chosen, i2]) / 2


def _standard_error(x):
    """The sample standard deviation (n − 1) over √n; 0 for one sample."""
    x = np.asarray(x, dtype=np.float64)
    return float(x.std(ddof=1)) / np.sqrt(x.size) if x.size > 1 else 0.0
