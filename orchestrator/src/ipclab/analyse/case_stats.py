"""From outcomes (raw samples of each round) to records (statistics, intervals, ratios, warnings).
Pure: no I/O. The methods are stated in stats.py."""
import zlib
from dataclasses import replace

import numpy as np

from ipclab.analyse import hosts
from ipclab.analyse import noise
from ipclab.analyse import parts
from ipclab.analyse import stats
from ipclab.analyse import throughput
from ipclab.common.units import format_ns
from ipclab.plan import patterns
from ipclab.plan.matrix import axis_value
from ipclab.records.precision import relative_width

STAT_FIELDS = ("count", "min", "mean", "std", "median", "p90", "p99", "p99_9", "max",
               "ci95_low", "ci95_high")


def stat_fields(percentiles=stats.DEFAULT_PERCENTILES):
    """A summary's fields as the tables show them: the percentiles asked for
    (`statistics.percentiles`) in place of the fixed ones, the median always (its interval is
    the result), the max always beside them."""
    asked = [k for k in map(stats.percentile_key, sorted(percentiles)) if k != "median"]
    return ("count", "min", "mean", "std", "median", *asked, "max", "ci95_low", "ci95_high")
# What add_ratios gives a record: its ratio to the baseline with the interval, the verdict, and
# which case the baseline was.
RATIO_FIELDS = ("ratio", "ratio_ci_low", "ratio_ci_high", "verdict", "baseline_id")
ANALYSIS_FIELDS = ("raw", "trimmed", "outliers_removed", "warnings", "round_medians",
                   "round_spread", "median_ci_low", "median_ci_high", "rounds_ci", "stable")


def per_message_rounds(record, rounds):
    """A stream case's rounds as each window's time per message (throughput.py); other
    patterns' rounds unchanged."""
    pattern = patterns.of_record(record)
    if not pattern.per_window:
        return rounds
    messages = {e["round"]: (e.get(pattern.entry_key) or {}).get("messages")
                for e in record["rounds"]}
    out = {}
    for r, x in rounds.items():
        n = messages.get(r)
        out[r] = throughput.per_message(x, n) if n and 0 < len(x) <= n else x
    return out


def measured_rounds(record, rounds, settings):
    """round -> the times a case's statistics are of (before any outlier rule): each ok round's
    raw samples past the skipped rounds, a stream's as each window's time per message. The
    HdrHistogram logs hold these too (output/hlogs.py), so they agree with the raw columns."""
    rounds = {r: np.asarray(x) for r, x in sorted(rounds.items()) if x is not None and len(x)
              and r > settings.skip_rounds}
    return per_message_rounds(record, rounds)


def case_seed(seed, *ids):
    """A bootstrap seed from the scenario's seed and case ids: the same interval every time."""
    return np.random.default_rng([int(seed), *(zlib.crc32(i.encode()) for i in ids)])


def analyse(record, rounds, settings, seed=1):
    """Adds statistics and advice to `record` in place. `rounds`: round index -> raw samples of
    each ok round. Returns round index -> the round's samples inside the pooled outlier fences,
    sorted (what the intervals and ratios are made of)."""
    for key in ANALYSIS_FIELDS:
        record[key] = None
    record["warnings"] = []
    rounds = measured_rounds(record, rounds, settings)
    kept = _analyse(record, rounds, settings, seed) if rounds else {}
    record.update(parts.figures(record))
    found = parts.warnings(record)
    if rounds:  # clients on several hosts: the host as the top level of the interval
        found += hosts.analyse(record, rounds, settings, case_seed(seed, "hosts", record["id"]))
    record["warnings"] = (record["warnings"] or []) + [w.as_dict() for w in found]
    return kept


def _analyse(record, rounds, settings, seed):
    pooled = np.concatenate(list(rounds.values()))
    # Under load the tail is the result (a stall's waiting requests), never an outlier.
    outliers = patterns.of_record(record).outliers(settings.outliers)
    kept_pooled, removed = stats.remove_outliers(pooled, outliers, settings.tukey_k)
    if outliers == "tukey" and kept_pooled.size:
        low, high = stats.tukey_fences(pooled, settings.tukey_k)
        kept = {r: np.sort(x[(x >= low) & (x <= high)]) for r, x in rounds.items()}
    else:
        kept = {r: np.sort(x) for r, x in rounds.items()}
    kept = {r: x if x.size else np.sort(rounds[r]) for r, x in kept.items()}
    raw = _with_mean_interval(stats.summarize(pooled, settings.percentiles), list(rounds.values()),
                              case_seed(seed, "raw mean", record["id"]))
    trimmed = _with_mean_interval(stats.summarize(kept_pooled, settings.percentiles), list(kept.values()),
                                  case_seed(seed, "mean", record["id"])) \
        if kept_pooled.size else raw
    record["raw"], record["trimmed"] = raw.as_dict(), trimmed.as_dict()
    record["outliers_removed"] = removed
    pattern = patterns.of_record(record)
    warnings = stats.advice(trimmed, raw.count, removed, windows=pattern.per_window,
                            tail_is_result=pattern.keeps_tail)
    _round_figures(record, rounds, kept)
    medians = [float(np.median(x)) for x in kept.values()]
    intervals = [stats.median_ci_of_round(x) for x in kept.values()]
    record["round_medians"] = medians
    record["round_spread"] = stats.round_spread(medians)
    record["median_ci_low"], record["median_ci_high"] = stats.hierarchical_median_ci(
        list(kept.values()), case_seed(seed, record["id"]))
    # The interval its own rounds give, kept: pooled.py may replace the median's, then need it
    # back when the run's other cases no longer support the replacement.
    record["rounds_ci"] = [record["median_ci_low"], record["median_ci_high"]]
    warnings += _round_concerns(record)
    record["warnings"] = [w.as_dict() for w in warnings]
    judge_stability(record, medians, intervals)
    return kept


def judge_stability(record, medians, intervals):
    """Sets record["stable"] and its "rounds disagree" warning from its round medians and their
    intervals (again when its median's interval changed: pooled.py). A case that met its
    precision target has its rounds' disagreement inside an interval as narrow as asked: "rerun
    with more rounds" would be advice already taken."""
    record["warnings"] = [w for w in record["warnings"] if w["kind"] != "unstable"]
    if len(medians) < 2:
        return
    unstable = stats.rounds_disagree(medians, intervals) and not _met_target(record)
    record["stable"] = not unstable
    if unstable:
        figures = ", ".join(format_ns(m) for m in medians)
        record["warnings"].insert(0, stats.advise(
            "unstable", f"round medians {figures} (spread {record['round_spread']:.2f})").as_dict())


def _met_target(record):
    """True when the record has a precision target and its median's interval is within it."""
    width, target = relative_width(record), record.get("precision_target")
    return bool(target) and width is not None and width <= target


def _with_mean_interval(summary, rounds, rng):
    """The summary with its mean's interval drawn over the rounds (the hierarchical bootstrap):
    a t-interval over pooled samples would treat every round as the same run of the peers."""
    if summary.count < 2:
        return summary
    low, high = stats.hierarchical_mean_ci(rounds, rng)
    return replace(summary, ci95_low=low, ci95_high=high)


def _round_figures(record, rounds, kept):
    for entry in record["rounds"]:
        r = entry["round"]
        if r not in kept:
            continue
        entry["median"] = float(np.median(kept[r]))
        entry["median_ci_low"], entry["median_ci_high"] = stats.median_ci_of_round(kept[r])
        found = stats.drift(rounds[r])
        entry["drift"] = {"last_over_first": round(found[0], 4), "p": found[1],
                          "shape": found[2]} if found else None


def _round_concerns(record):
    """One warning per kind over the rounds. Drift counts when at least half the rounds drift the
    same way and shape (a warm-up too short shows in every round; a machine's change of mood
    does not): a warm-up ("drift": raise --warmup) or a shift, which warm-up would not cure.
    Other work on the CPUs and steal time count in any round."""
    found, drifts = {}, {}
    rounds = [e for e in record["rounds"] if e.get("status") == "ok"]
    for entry in rounds:
        if entry.get("drift"):
            change = entry["drift"]["last_over_first"]
            kind = "drift" if entry["drift"].get("shape", "warm-up") == "warm-up" else "shift"
            drifts.setdefault((kind, "slowed" if change > 1 else "sped up"), []).append(
                f"{entry['round']} ({change:.2f}×)")
        for kind, detail in noise.concerns(entry.get("noise")):
            found.setdefault(kind, []).append(f"round {entry['round']}: {detail}")
    for (kind, way), which in drifts.items():
        if 2 * len(which) >= len(rounds):
            found.setdefault(kind, []).append(
                f"{way} from the first tenth to the last in round {', '.join(which)}")
    return [stats.advise(kind, "; ".join(details)) for kind, details in found.items()]


def add_ratios(records, settings, kept, seed=1, cache=None):
    """Each ok record gets `ratio` [ratio_ci_low, ratio_ci_high] to the baseline case with the same
    sizes, pattern and placement (unless the baseline names them), formed per round against the
    baseline's same round. `kept`: id -> round -> sorted samples (from analyse). `cache` (a dict)
    keeps intervals already drawn, for a store that rewrites its files after every round."""
    cache = {} if cache is None else cache
    selector = settings.baseline
    for record in records:
        record.update(dict.fromkeys(RATIO_FIELDS))
    if not selector:
        return records
    by_key = {}
    for record in records:
        if record["status"] == "ok" and all(axis_value(record, k) == v for k, v in selector.items()):
            by_key.setdefault(_match_key(record, selector), record)
    for record in records:
        base = by_key.get(_match_key(record, selector))
        if record["status"] != "ok" or base is None:
            continue
        mine, theirs = kept.get(record["id"], {}), kept.get(base["id"], {})
        common = sorted(set(mine) & set(theirs))
        if not common:
            continue
        key = (record["id"], base["id"], settings.compare, seed,
               tuple((r, mine[r].size, float(mine[r].sum()), theirs[r].size,
                      float(theirs[r].sum())) for r in common))
        if base is record:
            cache[key] = (1.0, 1.0, 1.0)  # itself, round by round
        if key not in cache:
            cache[key] = stats.paired_ratio(
                [mine[r] for r in common], [theirs[r] for r in common],
                case_seed(seed, record["id"], base["id"]), settings.compare)
        ratio, low, high = cache[key]
        record.update(ratio=ratio, ratio_ci_low=low, ratio_ci_high=high,
                      verdict="baseline" if base is record else stats.verdict(low, high),
                      baseline_id=base["id"])
    return records


def _match_key(record, selector):
    # A case is compared with the baseline of its own sizes, pattern and placement, except where
    # the baseline fixes one of those itself.
    return tuple(record.get(k) for k in ("request_size", "response_size", "message_size",
                                         "payload", "sequence_length", "pattern", "placement")
                 if k not in selector)


def baseline_label(settings):
    sel = settings.baseline
    if not sel:
        return None
    return "/".join(str(sel[k]) for k in ("variant", "mechanism", "client", "server", "placement",
                                          "pattern") if k in sel)
